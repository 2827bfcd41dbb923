# The answer's process: runs after the text of wire.py, as `python -I -S -c <both texts> READ_FD WRITE_FD`.
# (No docstring or imports of dpteach here: the grading process read both files before any submission ran and
# passes their text, so nothing on disk that a notebook could rewrite starts this process.)
#
# It sets sys.path to the grading process's fresh copy of dpteach (labs without checkers or references) and
# the interpreter's own site-packages, makes the routines the task asks the student to write raise, runs the
# submission's import cell and answer cells, and then only answers requests: call this function of the
# answer with these values. Whatever it sends back is a return value, checked by the grading process.
import sys as _sys


def _main():
    channel = Channel(int(_sys.argv[1]), int(_sys.argv[2]))
    setup = channel.receive()
    _sys.path[:0] = [setup["copy"]]
    _sys.path.extend(setup["site"])
    _sys.dont_write_bytecode = True
    forbidden, sources = set(setup["forbidden"]), setup["defined_in"]

    def poison():
        import importlib
        import types

        def refused(*args, **kwargs):
            raise RuntimeError("graded as wrong: your answer called a dpteach routine that the task asks you to write")
        for module_name in sources:
            module = importlib.import_module(module_name)
            for name in forbidden:
                obj = vars(module).get(name)
                if isinstance(obj, types.FunctionType) and obj.__closure__ is None:
                    obj.__code__ = refused.__code__  # every reference to it raises, however it was reached
                elif obj is not None:
                    setattr(module, name, refused)

    namespace, errors = {"__name__": "__main__"}, []
    for index, source in enumerate(setup["cells"]):
        try:
            exec(compile(source, f"<answer cell {index}>", "exec"), namespace)
        except BaseException as err:  # noqa: B036 - a failing cell is part of the answer, as in Jupyter
            errors.append(f"cell {index}: {type(err).__name__}: {str(err)[:300]}")
        if index == 0:
            poison()  # after the import cell, before any answer
    poison()
    names = {name: channel.encode(namespace[name]) for name in setup["names"] if name in namespace}
    channel.send(["ready", names, errors])
    while True:
        message = channel.receive()
        if message[0] == "count":
            _count(channel, message)
        else:
            channel.serve(message)


def _count(channel, message):
    """A call whose Python lines in the submission's own code are counted (the no-loops check)."""
    target, budget, lines = channel._objects[message[1]], int(message[3]), [0]  # noqa: SLF001

    class Exceeded(Exception):
        pass

    def local(frame, event, arg):
        if event == "line":
            lines[0] += 1
            if lines[0] > budget:
                raise Exceeded
        return local

    def global_trace(frame, event, arg):
        return local if frame.f_code.co_filename.startswith("<answer cell") else None
    args = [channel.decode(a) for a in message[2]]
    _sys.settrace(global_trace)
    try:
        result = target(*args)
        reply = ["ret", channel.encode([result, lines[0]]), []]
    except Exceeded:
        reply = ["ret", channel.encode([None, budget + 1]), []]
    except BaseException as err:  # noqa: B036
        reply = ["err", type(err).__module__, type(err).__name__, str(err)[:2000], []]
    finally:
        _sys.settrace(None)
    channel.send(reply)


if __name__ == "__main__":  # run as `python -c` by the grading process; importing it does nothing
    _main()
