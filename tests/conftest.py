import matplotlib

matplotlib.use("Agg")  # tests never open windows


def pytest_configure(config):
    # Ties a test to the book's boxes for the theorem index (tools/theorem_index.py):
    # @pytest.mark.checks("alg-peeling", "thm-peeling-privacy").
    config.addinivalue_line("markers", "checks(*labels): the test checks the book boxes with these labels")
    # Ties a test to a sentence of the book that states what an experiment shows (tests/test_claims.py):
    # @pytest.mark.claim("ch04-private-auc-under-envelope") matches <!-- claim: ch04-private-auc-under-envelope -->.
    config.addinivalue_line("markers", "claim(label): the test checks the book's claim with this label")
    # A statistical test that needs more than a minute of CPU time (issue 32). `make test` and `make unit` run it;
    # `make unit-quick` (pytest -m "not slow") leaves it out for a developer's quick loop.
    config.addinivalue_line("markers", "slow: needs more than a minute of CPU time; deselect with -m 'not slow'")
