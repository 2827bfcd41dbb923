# The notebooks in this folder are the student versions: their task cells raise NotImplementedError
# by design, so pytest/nbval (`make notebooks`) skips them and executes the solutions in solutions/.
collect_ignore_glob = ["lab*.ipynb"]
