#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check one output of osprof-report made from hostile profiles.

    hostile_check.py MODE FILE [HEX]...

Each HEX is a string (hex-encoded bytes, so any byte can be passed) that
the output must show, in the spelling MODE calls for. Exits 0 when FILE
passes, else 1 with the reasons on stderr. Modes:

  text  strict UTF-8, no control byte but newline, no C1, separator or
        bidi control; every string in core's text spelling
  html  html.parser (Python's): strict UTF-8; no script, iframe, img,
        object, embed, link, base, form or input element, no on*
        attribute, no javascript: URL, one style, meta and body element;
        every string in the text spelling inside text content only
  svg   xml.etree (a strict XML parser); every string, text-spelled, in
        some text element (titles, keys, labels and tics alike)
  dat   a gnuplot .dat file: within each data set every line splits
        (gnuplot's way: "quoted" or blank-separated) into as many columns
  csv   csv (Python's): the header, 11 fields a row; the first HEX is
        the layer of every row, the rest are exactly the operations
  om    prometheus_client's OpenMetrics parser, then its Prometheus text
        parser: the first HEX is the layer label of every sample, the rest
        are exactly the histograms' names (the op label; irq's irq label;
        block's device and op joined by a dot), valid UTF-8 exactly, other
        bytes as \\xHH
  json  json (Python's) on strict UTF-8: the first HEX is the layer, the
        rest are exactly the operation names (bytes that are not UTF-8
        read back as their Latin-1 letters)
  where show --format json on strict UTF-8: "where the time goes" has the
        first HEX as its transport, and the rest among its operations
"""
import csv
import html.parser
import io
import json
import re
import sys
import xml.etree.ElementTree as ET

HIDDEN = (set(range(0x80, 0xA0)) | {0x61C, 0x200E, 0x200F}
          | set(range(0x2028, 0x202F)) | set(range(0x2066, 0x206A)))


def chars(b):
    """Code points of @b, a byte that is not UTF-8 as 0xDC00 + byte."""
    return b.decode("utf-8", errors="surrogateescape")


def bad_byte(ch):
    return 0xDC80 <= ord(ch) <= 0xDCFF


def spell_text(b):
    """core's text spelling (osp_esc_text), written again from its doc."""
    out = []
    for ch in chars(b):
        cp = ord(ch)
        if bad_byte(ch):
            out.append("\\x%02x" % (cp - 0xDC00))
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\t\n\r":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r"}[ch])
        elif cp < 0x20 or cp == 0x7F:
            out.append("\\x%02x" % cp)
        elif cp in HIDDEN:
            out.append("\\u{%04x}" % cp)
        else:
            out.append(ch)
    return "".join(out)


def spell_om(b):
    return "".join("\\x%02x" % (ord(c) - 0xDC00) if bad_byte(c) else c
                   for c in chars(b))


def spell_json(b):
    return "".join(chr(ord(c) - 0xDC00) if bad_byte(c) else c for c in chars(b))


class Checker:
    def __init__(self, path):
        self.path = path
        self.errors = []

    def fail(self, msg):
        self.errors.append(msg)

    def utf8(self, data):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            self.fail("not UTF-8: %s" % e)
            return data.decode("utf-8", errors="replace")

    def no_controls(self, text):
        for i, ch in enumerate(text):
            cp = ord(ch)
            if ch != "\n" and (cp < 0x20 or cp == 0x7F or cp in HIDDEN):
                self.fail("raw control U+%04X at %d: %r" % (cp, i, text[max(0, i - 30):i + 30]))
                return

    def shows(self, haystack, wanted, how):
        for w in wanted:
            if w not in haystack:
                self.fail("%s %r not shown" % (how, w[:120]))


def check_text(c, data, strings):
    text = c.utf8(data)
    c.no_controls(text)
    c.shows(text, [spell_text(s) for s in strings], "text")


class Page(html.parser.HTMLParser):
    FORBIDDEN = {"script", "iframe", "img", "object", "embed", "link", "base",
                 "form", "input", "frame", "frameset", "audio", "video"}

    def __init__(self, c):
        super().__init__(convert_charrefs=True)
        self.c = c
        self.texts = []
        self.count = {}

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag in self.FORBIDDEN:
            self.c.fail("element <%s> %r" % (tag, attrs))
        for name, value in attrs:
            if name.startswith("on"):
                self.c.fail("event attribute %s=%r on <%s>" % (name, value, tag))
            if value and "javascript:" in value.lower():
                self.c.fail("javascript: URL in %s of <%s>" % (name, tag))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.texts.append(data)


def check_html(c, data, strings):
    text = c.utf8(data)
    page = Page(c)
    page.feed(text)
    page.close()
    for tag in ("style", "meta", "body"):
        if page.count.get(tag) != 1:
            c.fail("%d <%s> elements" % (page.count.get(tag, 0), tag))
    # Text nodes never hold a raw newline of ours: joined so, no string
    # can match across two of them.
    c.shows("\n".join(page.texts), [spell_text(s) for s in strings], "page text")


def check_svg(c, data, strings):
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        c.fail("not well-formed XML: %s" % e)
        return
    texts = "\n".join("".join(el.itertext()) for el in root.iter()
                      if el.tag.endswith("}text") or el.tag == "text")
    c.shows(texts, [spell_text(s) for s in strings], "svg text")


def check_dat(c, data, strings):
    text = c.utf8(data)
    c.no_controls(text.replace("\n", ""))
    for k, block in enumerate(re.split(r"\n\n\n", text)):
        widths = set()
        for line in block.split("\n"):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.count('"') % 2:
                c.fail("an unbalanced quote: %r" % line)
            widths.add(len(re.findall(r'"[^"]*"|[^\s"]+', line)))
        if len(widths) > 1:
            c.fail("data set %d: lines of %s columns" % (k, sorted(widths)))


def check_csv(c, data, strings):
    layer, ops = strings[0], strings[1:]

    def cell(b):
        s = chars(b)
        return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s

    rows = list(csv.reader(io.StringIO(data.decode("utf-8", errors="surrogateescape"),
                                       newline="")))
    if not rows or rows[0] != ["layer", "op", "hist", "count", "sum_ns", "min_ns",
                               "max_ns", "bucket", "lower_ns", "upper_ns", "bucket_count"]:
        c.fail("bad header %r" % rows[:1])
        return
    seen = set()
    for r in rows[1:]:
        if len(r) != 11:
            c.fail("a row of %d fields: %r" % (len(r), r))
            continue
        if r[0] != cell(layer):
            c.fail("layer %r, want %r" % (r[0], cell(layer)))
        seen.add(r[1])
        if r[2] not in ("lat", "cpu") or not r[3].isdigit():
            c.fail("bad row %r" % r)
    if seen != {cell(o) for o in ops}:
        c.fail("operations %r, want %r" % (sorted(seen), sorted(cell(o) for o in ops)))


def check_om(c, data, strings):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_parse
    from prometheus_client.parser import text_string_to_metric_families as prom_parse

    text = c.utf8(data)
    layer = spell_om(strings[0])
    want = {spell_om(s) for s in strings[1:]}
    for name, parse in (("openmetrics", om_parse), ("prometheus", prom_parse)):
        try:
            fams = list(parse(text))
        except Exception as e:  # the parsers raise ValueError and others
            c.fail("%s parser: %s" % (name, e))
            continue
        seen = set()
        for f in fams:
            if not re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", f.name):
                c.fail("%s: bad metric name %r" % (name, f.name))
            for s in f.samples:
                if s.labels.get("layer") != layer:
                    c.fail("%s: layer %r, want %r" % (name, s.labels.get("layer"), layer))
                if s.name.startswith("osprof_info"):
                    continue
                lb = s.labels
                seen.add(lb["irq"] if "irq" in lb else
                         lb["device"] + "." + lb["op"] if "device" in lb else lb.get("op"))
        if seen != want:
            c.fail("%s: names %r, want %r" % (name, sorted(seen), sorted(want)))


def load_json(c, data):
    """The document, or None (said) when it is no JSON in strict UTF-8."""
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        c.fail("not JSON in UTF-8: %s" % e)
        return None


def check_json(c, data, strings):
    doc = load_json(c, data)
    if doc is None:
        return
    if doc.get("layer") != spell_json(strings[0]):
        c.fail("layer %r, want %r" % (doc.get("layer"), spell_json(strings[0])))
    seen = {op["name"] for op in doc.get("ops", [])}
    want = {spell_json(s) for s in strings[1:]}
    if seen != want:
        c.fail("operations %r, want %r" % (sorted(seen), sorted(want)))


def check_where(c, data, strings):
    doc = load_json(c, data)
    if doc is None:
        return
    where = doc.get("where") or {}
    if where.get("transport") != spell_json(strings[0]):
        c.fail("transport %r, want %r" % (where.get("transport"), spell_json(strings[0])))
    seen = {op["name"] for op in where.get("ops", [])}
    for s in strings[1:]:
        if spell_json(s) not in seen:
            c.fail("operation %r not in %r" % (spell_json(s), sorted(seen)))


MODES = {"text": check_text, "html": check_html, "svg": check_svg, "dat": check_dat,
         "csv": check_csv, "om": check_om, "json": check_json, "where": check_where}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    c = Checker(sys.argv[2])
    with open(sys.argv[2], "rb") as f:
        data = f.read()
    strings = [bytes.fromhex(h) for h in sys.argv[3:]]
    MODES[sys.argv[1]](c, data, strings)
    for e in c.errors[:20]:
        print("%s: %s" % (c.path, e), file=sys.stderr)
    sys.exit(1 if c.errors else 0)


if __name__ == "__main__":
    main()
