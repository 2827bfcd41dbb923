import matplotlib

matplotlib.use("Agg")  # tests never open windows
