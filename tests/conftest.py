import matplotlib

matplotlib.use("Agg")  # tests never open windows


def pytest_configure(config):
    # Ties a test to the book's boxes for the theorem index (tools/theorem_index.py):
    # @pytest.mark.checks("alg-peeling", "thm-peeling-privacy").
    config.addinivalue_line("markers", "checks(*labels): the test checks the book boxes with these labels")
    # Ties a test to a sentence of the book that states what an experiment shows (tests/test_claims.py):
    # @pytest.mark.claim("ch04-private-auc-under-envelope") matches <!-- claim: ch04-private-auc-under-envelope -->.
    config.addinivalue_line("markers", "claim(label): the test checks the book's claim with this label")
    # A test that takes more than a minute on a loaded machine (issue 32; the list below). `make test`
    # and `make unit` run it; `make unit-quick` (pytest -m "not slow") leaves it out for a developer's quick loop.
    config.addinivalue_line("markers", "slow: more than a minute on a loaded machine (SLOW in tests/conftest.py); "
                                       "deselect with -m 'not slow'")


# The slow tests, by "file::test-name prefix", with their measured CPU time (time.process_time of the pytest process
# plus its children, setup to teardown; issue 32). "More than a minute" is wall time on the machine the issue
# targets: two cores with two CPU-bound processes beside `pytest -n 2`, where a test gets about half a core, i.e.
# more than 30 s of CPU. A group whose tests share a cached computation is marked as a whole: deselecting only the
# test that happens to fill the cache would move its cost to the next one. Measured on the 2026-12-07 tree, under
# nice on a shared machine (wall times there were 7-10x the CPU times; CPU times do not depend on the load). Of the
# statistical tests none needed a minute of CPU; after chapter 10's table the largest were the accounting oracle's
# certified-ε fixture (26 s), chapter 9's and 7's claims (12-14 s each) and the audit report's two fixtures (12-14 s).
SLOW = {
    "test_claims.py::test_ch10_": "chapter 10's real-data table, 10 splits x 2 claim seeds (_ch10_table, cached; 10 of "
                                  "the chapter's 11 claims read it): 35 s of CPU",
    # Not statistical, but over a minute even on an idle machine: every test reads the module's course fixture.
    "test_nbgrader.py::": "the nbgrader course built, released and autograded for every lab (module fixture "
                          "`course`, read by all 14 tests): 134 s of CPU",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = f"{item.path.name}::{item.name}"
        if any(name.startswith(prefix) for prefix in SLOW):
            item.add_marker("slow")
