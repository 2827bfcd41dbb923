import matplotlib

matplotlib.use("Agg")  # tests never open windows


def pytest_configure(config):
    # Ties a test to the book's boxes for the theorem index (tools/theorem_index.py):
    # @pytest.mark.checks("alg-peeling", "thm-peeling-privacy").
    config.addinivalue_line("markers", "checks(*labels): the test checks the book boxes with these labels")
