"""``python -m dpteach.labs student [--src book/labs] [--out _build/student_labs]``."""

import argparse

from . import make_student_versions

parser = argparse.ArgumentParser(prog="python -m dpteach.labs",
                                 description="Generate student versions of the lab notebooks.")
parser.add_argument("command", choices=["student"], help="'student': strip the marked solutions")
parser.add_argument("--src", default="book/labs", help="folder of solution notebooks")
parser.add_argument("--out", default="_build/student_labs", help="folder for the student notebooks")
args = parser.parse_args()
for path in make_student_versions(args.src, args.out):
    print(f"wrote {path}")
