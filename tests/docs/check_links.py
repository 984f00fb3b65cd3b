#!/usr/bin/env python3
"""Checks the relative links of the project's markdown: README.md at the root and docs/**/*.md.

Usage: check_links.py ROOT

Every inline markdown link [text](target) outside code is checked. Links with a scheme
(http:, https:, mailto:, ...) and pure #anchor links are skipped; any other target, with its
#fragment removed, must name an existing file or folder relative to the file that holds the
link. A #fragment into a .md file must name one of its headings (GitHub's anchors: lowercase,
punctuation other than hyphens and spaces dropped, spaces turned into hyphens, a -N suffix for
repeated headings). Prints "FILE:LINE: broken link 'TARGET'" for each failure and exits 1, else
prints "N links checked in M files". Python 3 standard library only.
"""
import os
import re
import sys

# [text](target) or [text](target "title"); text may hold one level of brackets (an image
# inside a link). Images ![alt](src) match too, which is right: their files must exist as well.
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+[\"'(][^)]*)?\)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def strip_code_spans(text):
    """Blanks out `code spans` (which may run over several lines), keeping every newline."""
    return CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def prose_lines(path):
    """Yields (line number, text) for every line outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1) == fence:
                    fence = None
                continue
            if fence is None:
                yield number, line.rstrip("\n")


def paragraphs(path):
    """Yields (first line number, text) for each run of prose lines between blank lines and
    fences: code spans and link texts may continue on the next line of a paragraph."""
    first, lines, last = None, [], None
    for number, line in prose_lines(path):
        if lines and (not line.strip() or number != last + 1):
            yield first, "\n".join(lines)
            first, lines = None, []
        if line.strip():
            if not lines:
                first = number
            lines.append(line)
        last = number
    if lines:
        yield first, "\n".join(lines)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # keeps letters, digits, _, - and spaces
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        found, seen = set(), {}
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else "%s-%d" % (base, n))
        _anchors[path] = found
    return _anchors[path]


def markdown_files(root):
    files = []
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        files.append(readme)
    for folder, dirs, names in os.walk(os.path.join(root, "docs")):
        dirs.sort()
        files.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".md"))
    return files


def check(path, root):
    """Returns (links checked, list of error lines) for one file."""
    checked, errors = 0, []
    shown = os.path.relpath(path, root)
    for first, text in paragraphs(path):
        text = strip_code_spans(text)
        for m in LINK.finditer(text):
            target = m.group(1)
            number = first + text.count("\n", 0, m.start(1))
            if SCHEME.match(target) or target.startswith("#"):
                continue
            checked += 1
            file_part, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(resolved):
                errors.append("%s:%d: broken link '%s'" % (shown, number, target))
            elif fragment and resolved.endswith(".md") and os.path.isfile(resolved):
                if fragment.lower() not in anchors(resolved):
                    errors.append("%s:%d: broken link '%s' (no heading with anchor '#%s' in %s)"
                                  % (shown, number, target, fragment,
                                     os.path.relpath(resolved, root)))
    return checked, errors


def main(argv):
    if len(argv) != 2:
        print("usage: check_links.py ROOT", file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    files = markdown_files(root)
    if not files:
        print("%s: no README.md and no docs/*.md" % root, file=sys.stderr)
        return 2
    total, errors = 0, []
    for path in files:
        checked, file_errors = check(path, root)
        total += checked
        errors.extend(file_errors)
    for e in errors:
        print(e)
    if errors:
        print("%d broken of %d links checked in %d files" % (len(errors), total, len(files)))
        return 1
    print("%d links checked in %d files" % (total, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
