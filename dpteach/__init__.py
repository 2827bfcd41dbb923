"""dpteach: the algorithms of the dpteach book on differentially private learning.

One module per chapter topic; each reads top to bottom like its chapter.
This is teaching code: it is correct and audited, but it makes no attempt to
resist floating-point side channels, so do not use it to protect real data.
"""

__version__ = "0.1.0"
