"""Where toolspecs.core leans on another library's internals: one module per library.

Each module opens with a banner listing the internals it uses, and has a test in
``tests/core`` that checks them against the pinned version (``uv.lock``): when an upgrade
changes one, that test fails and names it, instead of a wrong ranking or a crash at a
user's. Everywhere else, core uses the libraries' public API only. The other packages
keep theirs (``compat_<library>.py``) in the lowest package that uses each library;
``tests/test_compat_modules.py`` checks every one and that no other module touches them.
"""
