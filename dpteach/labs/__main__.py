"""``python -m dpteach.labs student [--src book/labs/solutions] [--out book/labs] [--check]``
and ``python -m dpteach.labs course --out course [--src book/labs/solutions] [--course-id dpteach] [--kernel python3]``."""

import argparse
import sys

from .student import SOLUTIONS_DIR, STUDENT_DIR, make_student_versions, student_version_drift

parser = argparse.ArgumentParser(prog="python -m dpteach.labs",
                                 description="Generate the student versions of the lab notebooks, or an nbgrader "
                                             "course for all labs.")
parser.add_argument("command", choices=["student", "course"],
                    help="'student': strip the marked solutions; 'course': write a ready nbgrader course")
parser.add_argument("--src", default=str(SOLUTIONS_DIR), help="folder of solution notebooks")
parser.add_argument("--out", default=None, help=f"folder for the student notebooks (default {STUDENT_DIR}) "
                                                f"or for the course (required; must be new or empty)")
parser.add_argument("--check", action="store_true",
                    help="student: write nothing; exit 1 if a student version in --out is missing or out of date")
parser.add_argument("--course-id", default="dpteach", help="course: nbgrader course id")
parser.add_argument("--kernel", default="python3", help="course: the Jupyter kernel (with dpteach) that runs submissions for the feedback")
args = parser.parse_args()
if args.command == "course":
    from .course import make_course

    if args.out is None:
        parser.error("course needs --out FOLDER")
    folder = make_course(args.out, args.src, course_id=args.course_id, kernel_name=args.kernel)
    print(f"wrote the nbgrader course {folder}: run nbgrader there with this environment's nbgrader, e.g. "
          f"{sys.executable.rsplit('/', 1)[0]}/nbgrader autograde ASSIGNMENT (see book/instructors.md)")
    sys.exit(0)
out = STUDENT_DIR if args.out is None else args.out
if args.check:
    problems = student_version_drift(args.src, out)
    for name, reason in problems:
        print(f"{name}: {reason}", file=sys.stderr)
    sys.exit(1 if problems else 0)
for path in make_student_versions(args.src, out):
    print(f"wrote {path}")
