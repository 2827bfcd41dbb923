"""``python -m dpteach.labs student [--src book/labs/solutions] [--out book/labs] [--check]``."""

import argparse
import sys

from .student import SOLUTIONS_DIR, STUDENT_DIR, make_student_versions, student_version_drift

parser = argparse.ArgumentParser(prog="python -m dpteach.labs",
                                 description="Generate the student versions of the lab notebooks.")
parser.add_argument("command", choices=["student"], help="'student': strip the marked solutions")
parser.add_argument("--src", default=str(SOLUTIONS_DIR), help="folder of solution notebooks")
parser.add_argument("--out", default=str(STUDENT_DIR), help="folder for the student notebooks")
parser.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if a student version in --out is missing or out of date")
args = parser.parse_args()
if args.check:
    problems = student_version_drift(args.src, args.out)
    for name, reason in problems:
        print(f"{name}: {reason}", file=sys.stderr)
    sys.exit(1 if problems else 0)
for path in make_student_versions(args.src, args.out):
    print(f"wrote {path}")
