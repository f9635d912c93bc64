"""What the side-by-side patch scripts share (`tools/side_by_side_*/patch_official.py`):
a fresh copy of the official code to patch, and a replacement that stops when the text it
expects is not there (another version of the code) instead of patching nothing.
"""
import pathlib
import shutil
import sys


def fresh_copy(src: pathlib.Path, dst: pathlib.Path) -> None:
    """Copies the official folder `src` to `dst`, replacing what was there."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


def sub(text: str, old: str, new: str, path: str) -> str:
    """`text` with `old` replaced by `new`; exits naming `path` when `old` is absent."""
    if old not in text:
        sys.exit(f"{path}: expected text not found (another version of the code?): {old!r}")
    return text.replace(old, new)
