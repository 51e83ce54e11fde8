#!/usr/bin/env python3
"""Checks the documentation: README.md is at most 400 lines, and every
relative Markdown link in README.md, ARCHITECTURE.md, docs/*.md and
bench/README.md leads to a file or folder that exists and, when it names an
anchor, to a heading in that file (GitHub's anchors: lowercase, spaces to
hyphens, punctuation dropped, -1, -2 … for repeated headings).

Prints one line per problem, `file:line: message`, and exits 1 when there is
any; run from anywhere (paths are taken from the repository's root).
"""

import glob
import os
import re
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 400

# [text](target) and ![alt](target), the target up to the first space or
# closing parenthesis (an optional "title" after it is ignored).
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")


def files_to_check():
    names = ["README.md", "ARCHITECTURE.md", "bench/README.md"]
    names += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return [n for n in names if os.path.isfile(os.path.join(ROOT, n))]


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.split("\n"), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = INLINE_CODE.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        seen = {}
        found = set()
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        # Explicit anchors: <a name="x"> or <a id="x">.
        found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
        _anchors[path] = found
    return _anchors[path]


def check(name):
    problems = []
    path = os.path.join(ROOT, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if name == "README.md":
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if count > README_MAX_LINES:
            problems.append(f"{name}:{count}: README.md has {count} lines, more than {README_MAX_LINES}")
    for number, line in prose_lines(text):
        for m in LINK.finditer(INLINE_CODE.sub(lambda c: " " * len(c.group(0)), line)):
            target = m.group(1)
            if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue  # an absolute URL (https:, mailto:, …)
            file_part, _, anchor = target.partition("#")
            file_part = urllib.parse.unquote(file_part)
            if file_part:
                if file_part.startswith("/"):
                    resolved = os.path.join(ROOT, file_part.lstrip("/"))
                else:
                    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                if not os.path.exists(resolved):
                    problems.append(f"{name}:{number}: link target missing: {target}")
                    continue
            else:
                resolved = path
            if anchor:
                if os.path.isdir(resolved) or not resolved.endswith(".md"):
                    problems.append(f"{name}:{number}: link target missing: {target} (an anchor into a file that is not Markdown)")
                elif urllib.parse.unquote(anchor).lower() not in anchors(resolved):
                    problems.append(f"{name}:{number}: link target missing: {target} (no such heading)")
    return problems


def main():
    problems = []
    for name in files_to_check():
        problems += check(name)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
