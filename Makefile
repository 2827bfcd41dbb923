# Two commands do all the set-up on a fresh machine with Python 3.11:
#   make book   build the HTML book (creates .venv and installs what it needs)
#   make test   run every test: unit/statistical/privacy tests, every notebook
#               under nbval, and a warnings-as-errors build of the book's markup
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= 2
# One BLAS thread per process: the tests already use both cores (pytest -n 2),
# and oversubscribed OpenBLAS threads make small matrix products 1000x slower.
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: book test unit notebooks markup labs bench clean

$(STAMP): requirements.txt requirements-test.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -r requirements-test.txt
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . --builder html
	@echo "The book is at $(CURDIR)/_build/html/index.html"

test: unit notebooks markup

unit: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest tests -n $(JOBS) -q

# Execute every notebook (chapters and lab solutions); outputs are random, so --nbval-lax.
notebooks: $(STAMP)
	$(BIN)/python -m pytest --nbval-lax --nbval-current-env -n $(JOBS) --dist loadfile -q -p no:cacheprovider book

# Build the markup with warnings as errors; nbval above already executed every notebook.
markup: $(STAMP)
	sed 's/execute_notebooks: force/execute_notebooks: "off"/' _config.yml > _build_markup_config.yml
	$(BIN)/jupyter-book build . --config _build_markup_config.yml --builder html --path-output _build/markup -W -n --keep-going; \
	  status=$$?; rm -f _build_markup_config.yml; exit $$status

labs: $(STAMP)
	$(BIN)/python -m dpteach.labs student --src book/labs/solutions --out book/labs

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build .pytest_cache
