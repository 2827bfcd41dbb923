"""The runners behind the book's figures: one file per chapter.

A runner repeats an algorithm over seeds and sweeps (ε, n, d, ...), shows a
progress bar when it takes more than a couple of seconds, and returns plain
arrays or dicts that a notebook plots. This is the only layer that imports
``dpteach.data``, ``tqdm`` or ``time`` together with the algorithms; the
algorithm modules never import it. Import a chapter's runners by module,
e.g. ``from dpteach.experiments import local``.
"""
