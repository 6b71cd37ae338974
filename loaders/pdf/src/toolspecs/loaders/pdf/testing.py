"""Small, valid PDFs for tests and demos: text pages that pypdf reads back verbatim.

``make_pdf`` writes a PDF of your own lines (and bookmarks); ``bomb_pdf`` a small one that
no reader should read whole (the limits of :func:`~toolspecs.loaders.pdf.read_pages`).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

__all__ = ["bomb_pdf", "make_pdf"]


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def make_pdf(pages: list[list[str]], outline: Sequence[tuple[str, int]] = ()) -> bytes:
    """A valid PDF (correct xref offsets) whose pages show ``pages`` as lines of text.

    Args:
        pages: The lines of each page, in Helvetica; characters outside cp1252 become ``?``.
        outline: Bookmarks (the PDF's outline), each a title and its page (1 for the
            first), in order, as LaTeX's hyperref writes them for sections.

    Returns:
        The PDF file's bytes.
    """
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    root = 4 + 2 * count  # the outline's root object, its items after it
    catalog = b"<< /Type /Catalog /Pages 2 0 R >>"
    if outline:
        catalog = f"<< /Type /Catalog /Pages 2 0 R /Outlines {root} 0 R >>".encode()
    objects: list[bytes] = [
        catalog,
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for i, lines in enumerate(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> " + f"/Contents {5 + 2 * i} 0 R >>".encode()
        )
        ops = [b"BT", b"/F1 11 Tf", b"14 TL", b"72 720 Td"]
        ops += [(b"T* " if n else b"") + _pdf_string(line) + b" Tj" for n, line in enumerate(lines)]
        ops.append(b"ET")
        stream = b"\n".join(ops)
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    if outline:
        objects.extend(_outline(outline, root))
    return _write(objects)


def _outline(items: Sequence[tuple[str, int]], root: int) -> list[bytes]:
    """The outline's root (object ``root``) and one flat item per bookmark after it."""
    first, last = root + 1, root + len(items)
    objects = [f"<< /Type /Outlines /First {first} 0 R /Last {last} 0 R /Count {len(items)} >>"]
    for number, (title, page) in enumerate(items, start=first):
        links = f" /Prev {number - 1} 0 R" if number > first else ""
        links += f" /Next {number + 1} 0 R" if number < last else ""
        page_object = 4 + 2 * (page - 1)
        objects.append(
            f"<< /Title {_pdf_string(title).decode('cp1252')} /Parent {root} 0 R{links} "
            f"/Dest [{page_object} 0 R /XYZ 72 720 0] >>"
        )
    return [item.encode("cp1252") for item in objects]


def _write(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (object 1 the catalog) with a correct xref table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def bomb_pdf(pages: int = 1000, chars: int = 10_000_000) -> bytes:
    """A small, valid PDF whose text takes pypdf an hour and gigabytes to read.

    One content stream shows a string of ``chars`` letters, compressed to a few KB;
    the page tree lists the one page that shows it ``pages`` times. With the defaults
    the file is 16 KB, and pypdf (7.1) takes about 3 s and 10 MB of text per page:
    about an hour and 10 GB for the whole file.

    Args:
        pages: How many pages the PDF has (all the same page).
        chars: The characters each page shows.
    """
    content = b"BT /F1 1 Tf (" + b"A" * chars + b") Tj ET"
    packed = zlib.compress(content, 9)
    kids = b" ".join([b"3 0 R"] * pages)
    return _write(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed)
            + packed
            + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
    )
