#!/usr/bin/env python3
"""Split a patch series, as a directory or as mail, into files git am applies.

  scripts/series.py split SOURCE --out DIR [--version N]
  scripts/series.py id DIR

SOURCE is one of:
  a. a directory with a 'series' file: each non-empty line not starting
     with '#' is a path relative to the directory ('../' allowed), taken in
     that order, or 'include DIR' for the patches DIR's series file lists;
     a listed file named 0000-* or numbered 0/N is a cover
     letter and skipped, a listed file without a diff is refused;
  b. a directory without a 'series' file: every regular file in it (hidden
     files and manifest.json aside) is a mail or an mbox of mails;
  c. an mbox file of one or more mails ('From ' lines separate them, as
     'git format-patch --stdout' and list archives write them);
  d. a single patch file, one mail as 'git format-patch' writes it.

Each mail is classified by its subject (unfolded, RFC 2047 decoded) and
body (quoted-printable and base64 decoded):
  - a reply or forward (subject begins 'Re:', 'Aw:', 'Fwd:', any case,
    repeated or not) is skipped, even when it carries a diff;
  - a cover letter (numbered 0/N) is skipped;
  - a patch has a diff (a 'diff --git ' line, or '--- a/' + '+++ b/'
    followed by '@@'); its bracket prefix gives the version and position:
    [PATCH 3/13], [PATCH v2 03/13], [RFC PATCH v3 1/5], [PATCH 1/2 v2],
    [PATCH] (a lone patch, 1/1), [PATCH v4]; the version is 1 unless stated;
  - a numbered (k/N, k >= 1) or [PATCH]-tagged mail without a diff is an
    empty patch: refused;
  - any other mail without a diff is skipped as not a patch;
  - a mail without headers or without a Subject is refused as malformed.

For b, c and d the patches are grouped by version.  A version is complete
when every k of 1..N is there exactly once, all with the same N.  The
newest complete version is taken (or --version N, which must be complete);
the others are logged as skipped.  No complete version is a refusal that
names the missing and duplicated numbers.  For a, the listed order is
the order and no version is selected.

DIR (created; it must be absent or empty) receives 0001.patch, 0002.patch,
... in n/N order, each the raw bytes of one mail exactly as it came (its
mbox 'From ' line included), and manifest.json:
  {"version": V, "count": N,
   "patches": [{"file", "n", "total", "subject", "source"}, ...],
   "skipped": [{"source", "subject", "reason"}, ...]}
A source is the file path, with '#K' (K from 1) when the file held
several mails.  stdout lists the absolute paths of the patch files, one a
line; the log goes to stderr, each line prefixed 'series: '.

'id DIR' prints the identity of a split output directory: the first 16
hex digits of a sha256 over what git am would make of each patch, in the
manifest's order.  Per patch it hashes
  - the subject, unfolded and decoded, without its leading [...] groups
    (git am drops them too) and with runs of white space made one space;
  - the commit message: the body lines before the '---' line (or before
    the diff), with trailing white space and leading/trailing blank lines
    removed, and without Reviewed-by:, Acked-by: and Tested-by: lines
    (trailers a resend collects from its reviews);
  - the diff: from the first 'diff --git ' (or '--- '/'+++ ' pair) line to
    the end, without a trailing '-- ' signature and trailing blank lines.
Not hashed: the mbox 'From ' line, every other header (From, Date,
Message-Id, ...), the notes and diffstat between '---' and the diff, the
transfer encoding and CRLF line ends.  So the same patches as a
directory, as an mbox with a cover letter, or as a v2 resend give one id.

Exit status: 0 done; 2 usage error ('error: ...'); 3 refusal, one stderr
line 'INFRA ERROR: <source>: <reason>'.
"""

import argparse
import base64
import binascii
import collections
import email
import email.header
import email.policy
import hashlib
import json
import os
import quopri
import re
import sys

EXIT_OK, EXIT_USAGE, EXIT_INFRA = 0, 2, 3
PROG = 'series.py'

# An mbox separator: 'From <anything> <weekday> <month> <day> <hh:mm>...'
FROM_LINE = re.compile(
    rb'^From \S*[ \t]+(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[ \t]+'
    rb'(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ \t]+'
    rb'\d{1,2}[ \t]+\d{1,2}:\d\d', re.M)
HEADER_LINE = re.compile(rb'^[!-9;-~]+:')
REPLY = re.compile(r'^\s*(re|aw|fwd?)\s*(?:\[\d+\])?\s*:', re.I)
REPLY_REASONS = {'re': 'a reply (Re:)', 'aw': 'a reply (Aw:)',
                 'fw': 'a forward (Fwd:)', 'fwd': 'a forward (Fwd:)'}
PREFIX = re.compile(r'^\s*((?:\[[^\]]*\]\s*)+)')
DIFF_GIT = re.compile(r'^diff --git ', re.M)
UNIFIED = re.compile(r'^--- (?:a/|/dev/null)[^\n]*\n\+\+\+ (?:b/|/dev/null)[^\n]*\n@@ ', re.M)
REVIEW_TRAILER = re.compile(r'^\s*(?:reviewed|acked|tested)-by:', re.I)
SIGNATURE = re.compile(r'\n-- \n(?![-+ @\\])[^\n]*\n*\Z')


class UsageError(Exception):
    """A bad argument: exit 2."""


class Refusal(Exception):
    """The series cannot be split as asked: exit 3, naming where and why."""

    def __init__(self, where, reason):
        super().__init__('%s: %s' % (where, reason))
        self.where = where
        self.reason = reason


def log(message):
    """One log line on stderr."""
    print('series: %s' % message, file=sys.stderr)


def one_line(text):
    """Text with every run of white space (newlines included) made one space."""
    return re.sub(r'\s+', ' ', text).strip()


# ---------------------------------------------------------------- mails

def split_mbox(data):
    """The raw mails of a file: split before each mbox 'From ' line.

    A file without such lines is one mail.  Text before the first 'From '
    line is a mail of its own unless it is blank.
    """
    starts = [m.start() for m in FROM_LINE.finditer(data)]
    if not starts:
        return [data] if data.strip() else []
    chunks = [data[:starts[0]]] if data[:starts[0]].strip() else []
    ends = starts[1:] + [len(data)]
    chunks += [data[a:b] for a, b in zip(starts, ends)]
    return chunks


def split_headers(raw):
    """(headers, body) of a raw mail; headers is None when there are none.

    headers is a list of (name, raw value bytes) in order, the value still
    folded.  The header block ends at the first blank line, or at the
    first line that is neither a header nor a continuation line.
    """
    lines = raw.splitlines(keepends=True)
    i = 1 if lines and FROM_LINE.match(lines[0]) else 0
    headers = []
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            break
        if line[:1] in (b' ', b'\t') and headers:
            headers[-1][1] += line
        elif HEADER_LINE.match(line):
            name, value = line.split(b':', 1)
            headers.append([name.decode('ascii').lower(), value])
        else:
            break
        i += 1
    if not headers:
        return None, raw
    return [(n, v) for n, v in headers], b''.join(lines[i:])


def decode_header_value(value):
    """A header value unfolded, RFC 2047 decoded, white space collapsed."""
    unfolded = re.sub(rb'\r?\n(?=[ \t])', b'', value).strip()
    text = unfolded.decode('utf-8', 'replace')
    try:
        text = str(email.header.make_header(email.header.decode_header(text)))
    except Exception:   # a bad charset or encoded word: keep it as written
        pass
    return one_line(text)


class Mail:
    """One mail: where it came from, its raw bytes, headers and body."""

    def __init__(self, source, raw, path):
        self.source = source
        self.raw = raw
        self.path = path
        self.headers, self.body = split_headers(raw)

    def header(self, name):
        """The first header called name, decoded, or None."""
        for n, v in self.headers or []:
            if n == name.lower():
                return decode_header_value(v)
        return None

    @property
    def subject(self):
        """The decoded subject, '' when there is none."""
        return self.header('subject') or ''

    def payload(self):
        """The body as git am reads it: transfer encoding undone.

        A multipart mail gives its text parts, one after the other.
        """
        ctype = (self.header('content-type') or '').lower()
        if ctype.startswith('multipart/'):
            raw = self.raw
            if FROM_LINE.match(raw):
                raw = raw.split(b'\n', 1)[1] if b'\n' in raw else b''
            msg = email.message_from_bytes(raw, policy=email.policy.compat32)
            parts = [p.get_payload(decode=True) or b'' for p in msg.walk()
                     if not p.is_multipart() and p.get_content_maintype() == 'text']
            return b'\n'.join(parts)
        return decode_transfer(self.body, self.header('content-transfer-encoding'))

    def text(self):
        """The payload as text with '\\n' line ends (undecodable bytes kept)."""
        return self.payload().decode('utf-8', 'surrogateescape').replace('\r\n', '\n')


def decode_transfer(body, encoding):
    """body with its Content-Transfer-Encoding undone (as is if unknown)."""
    encoding = (encoding or '').strip().lower()
    try:
        if encoding == 'quoted-printable':
            return quopri.decodestring(body)
        if encoding == 'base64':
            return base64.b64decode(body)
    except (ValueError, binascii.Error):
        pass
    return body


def read_mails(path, display=None):
    """The mails of a file (a mail or an mbox), named path or path#K."""
    display = display or path
    with open(path, 'rb') as f:
        data = f.read()
    chunks = split_mbox(data) or [data]
    if len(chunks) == 1:
        return [Mail(display, chunks[0], path)]
    return [Mail('%s#%d' % (display, k), c, path) for k, c in enumerate(chunks, 1)]


# ------------------------------------------------------- classification

class Prefix:
    """What a subject's bracket prefix says: version, n, total, tagged."""

    def __init__(self, subject):
        self.version, self.n, self.total, self.tagged = 1, None, None, False
        m = PREFIX.match(subject)
        if not m:
            return
        for token in re.split(r'[\s,\[\]]+', m.group(1)):
            word = token.upper()
            numbered = re.fullmatch(r'(\d+)/(\d+)', token)
            versioned = re.fullmatch(r'(?:PATCH|RFC)?V(\d+)', word)
            if numbered:
                self.n, self.total = int(numbered.group(1)), int(numbered.group(2))
            elif versioned:
                self.version = int(versioned.group(1))
                self.tagged = self.tagged or len(word) > len(versioned.group(1)) + 1
            elif word in ('PATCH', 'RFC', 'RESEND'):
                self.tagged = True


def strip_prefix(subject):
    """The subject without its leading [...] groups, as git am keeps it."""
    return one_line(PREFIX.sub('', subject, count=1))


def has_diff(text):
    """Whether text holds a diff git apply would find."""
    return bool(DIFF_GIT.search(text) or UNIFIED.search(text))


class Patch:
    """A mail that is a patch, with its place in its series."""

    def __init__(self, mail, version, n, total):
        self.mail, self.version, self.n, self.total = mail, version, n, total


def skip_entry(mail, reason):
    """A manifest 'skipped' entry, logged."""
    log('skipped: %s: %s "%s"' % (reason, mail.source, mail.subject))
    return {'source': mail.source, 'subject': mail.subject, 'reason': reason}


def classify(mail, listed=False):
    """A Patch, or a skip reason (str); raises Refusal for a bad mail.

    listed: the mail was named by a series file, where every mail that is
    not a cover letter or a reply must be a patch.
    """
    if mail.headers is None:
        raise Refusal(mail.source, 'malformed mail: no headers')
    subject = mail.header('subject')
    if subject is None:
        raise Refusal(mail.source, 'malformed mail: no Subject header')
    reply = REPLY.match(subject)
    if reply:
        return REPLY_REASONS[reply.group(1).lower()]
    prefix = Prefix(subject)
    if prefix.n == 0:
        return 'cover letter'
    if not has_diff(mail.text()):
        if listed or prefix.n is not None or prefix.tagged:
            raise Refusal('%s "%s"' % (mail.source, subject), 'empty patch: the mail has no diff')
        return 'not a patch (no diff)'
    if prefix.n is None:
        return Patch(mail, prefix.version, 1, 1)
    return Patch(mail, prefix.version, prefix.n, prefix.total)


def classify_all(mails, listed=False):
    """(patches, skipped entries) of mails, in their order."""
    patches, skipped = [], []
    for mail in mails:
        if listed and os.path.basename(mail.path).startswith('0000-'):
            skipped.append(skip_entry(mail, 'cover letter'))
            continue
        result = classify(mail, listed)
        if isinstance(result, Patch):
            patches.append(result)
        else:
            skipped.append(skip_entry(mail, result))
    return patches, skipped


# --------------------------------------------------------------- sources

def series_file_mails(source, seen=()):
    """The mails of the files a directory's series file names, in order.

    A line 'include DIR' stands for the patches of DIR's own series file
    (a series built on another one, such as a fixture that adds one patch
    to kernel-patches/, names it instead of copying its list).
    """
    series = os.path.join(source, 'series')
    if os.path.realpath(series) in seen:
        raise Refusal(series, 'includes itself')
    seen = seen + (os.path.realpath(series),)
    with open(series, encoding='utf-8', errors='surrogateescape') as f:
        entries = [line.strip() for line in f]
    mails = []
    for entry in entries:
        if not entry or entry.startswith('#'):
            continue
        if entry.startswith('include '):
            inc = os.path.normpath(os.path.join(source, entry[len('include '):].strip()))
            if not os.path.isfile(os.path.join(inc, 'series')):
                raise Refusal(series, 'includes a directory without a series file: %s'
                              % entry)
            mails += series_file_mails(inc, seen)
            continue
        path = os.path.normpath(os.path.join(source, entry))
        if not os.path.isfile(path):
            raise Refusal(series, 'names a missing patch: %s' % entry)
        mails += read_mails(path)
    return mails


def directory_mails(source):
    """The mails of every regular file of a directory, by file name."""
    mails = []
    for name in sorted(os.listdir(source)):
        path = os.path.join(source, name)
        if name.startswith('.') or name == 'manifest.json' or not os.path.isfile(path):
            continue
        mails += read_mails(path)
    if not mails:
        raise Refusal(source, 'no mails in the directory')
    return mails


# ------------------------------------------------------------- selection

def version_problems(patches):
    """Why the patches of one version are not a complete series ([] if they are)."""
    totals = sorted({p.total for p in patches})
    total = totals[-1]
    problems = []
    if len(totals) > 1:
        problems.append('different totals (%s)' % ', '.join(str(t) for t in totals))
    counts = collections.Counter(p.n for p in patches)
    missing = [k for k in range(1, total + 1) if not counts[k]]
    if missing:
        problems.append('missing ' + ', '.join('%d/%d' % (k, total) for k in missing))
    for k in sorted(counts):
        if counts[k] > 1:
            times = 'twice' if counts[k] == 2 else '%d times' % counts[k]
            problems.append('%d/%d appears %s' % (k, total, times))
        if k > total or k < 1:
            problems.append('%d/%d is out of range' % (k, total))
    return problems


def select_version(patches, wanted, source):
    """(version, patches in n order, skipped entries) of a bag of patches."""
    if not patches:
        raise Refusal(source, 'no patches found')
    groups = collections.defaultdict(list)
    for p in patches:
        groups[p.version].append(p)
    versions = sorted(groups, reverse=True)
    problems = {v: version_problems(groups[v]) for v in versions}
    if wanted is not None:
        if wanted not in groups:
            raise Refusal(source, 'no patches of v%d (found %s)'
                          % (wanted, ', '.join('v%d' % v for v in versions)))
        chosen = wanted
    else:
        complete = [v for v in versions if not problems[v]]
        chosen = complete[0] if complete else versions[0]
    if problems[chosen]:
        reason = 'incomplete series v%d: %s' % (chosen, '; '.join(problems[chosen]))
        others = ['v%d: %s' % (v, '; '.join(problems[v]))
                  for v in versions if v != chosen and problems[v]]
        if wanted is None and others:
            reason += ' (also incomplete: %s)' % ' | '.join(others)
        raise Refusal(source, reason)
    skipped = []
    for v in versions:
        if v == chosen:
            continue
        if wanted is not None:
            why = 'v%d (not the requested v%d)' % (v, wanted)
        elif v > chosen:
            why = 'v%d (incomplete: %s)' % (v, '; '.join(problems[v]))
        else:
            why = 'v%d (older than v%d)' % (v, chosen)
        log('skipped: %s: %d patch(es)' % (why, len(groups[v])))
        skipped += [{'source': p.mail.source, 'subject': p.mail.subject, 'reason': why}
                    for p in groups[v]]
    return chosen, sorted(groups[chosen], key=lambda p: p.n), skipped


# ----------------------------------------------------------------- output

def check_out_dir(out):
    """Refuse an output directory that exists and is not empty."""
    if os.path.lexists(out):
        if not os.path.isdir(out):
            raise Refusal(out, 'output exists and is not a directory')
        if os.listdir(out):
            raise Refusal(out, 'output directory is not empty')


def write_output(out, version, patches, skipped):
    """Write the patch files and manifest.json; return the patch paths."""
    os.makedirs(out, exist_ok=True)
    entries, paths = [], []
    for position, p in enumerate(patches, 1):
        name = '%04d.patch' % position
        path = os.path.join(out, name)
        with open(path, 'wb') as f:
            f.write(p.mail.raw)
        paths.append(os.path.abspath(path))
        entries.append({'file': name, 'n': p.n, 'total': p.total,
                        'subject': p.mail.subject, 'source': p.mail.source})
    manifest = {'version': version, 'count': len(patches),
                'patches': entries, 'skipped': skipped}
    with open(os.path.join(out, 'manifest.json'), 'w', encoding='ascii') as f:
        json.dump(manifest, f, indent=2)
        f.write('\n')
    return paths


def split_listed(source):
    """(version, patches, skipped) of a directory with a series file."""
    patches, skipped = classify_all(series_file_mails(source), listed=True)
    if not patches:
        raise Refusal(os.path.join(source, 'series'), 'no patches listed')
    versions = sorted({p.version for p in patches})
    if len(versions) > 1:
        log('note: the listed patches are of versions %s; taken as listed'
            % ', '.join('v%d' % v for v in versions))
    count = len(patches)
    ordered = [Patch(p.mail, p.version, k, count) for k, p in enumerate(patches, 1)]
    return (versions[0] if len(versions) == 1 else None), ordered, skipped


def cmd_split(args):
    """The split subcommand."""
    source = args.source
    if not os.path.exists(source):
        raise UsageError('SOURCE does not exist: %s' % source)
    if args.version is not None and args.version < 1:
        raise UsageError('--version must be 1 or more')
    check_out_dir(args.out)
    if os.path.isdir(source) and os.path.isfile(os.path.join(source, 'series')):
        if args.version is not None:
            raise UsageError('--version does not apply to a directory with a series file')
        log('taking the patches named by %s' % os.path.join(source, 'series'))
        version, patches, skipped = split_listed(source)
    else:
        mails = directory_mails(source) if os.path.isdir(source) else read_mails(source)
        patches, skipped = classify_all(mails)
        version, patches, more = select_version(patches, args.version, source)
        skipped += more
    paths = write_output(args.out, version, patches, skipped)
    log('%d patch(es)%s from %s in %s' % (len(patches),
        ' of v%d' % version if version else '', source, args.out))
    for path in paths:
        print(path)
    return EXIT_OK


# --------------------------------------------------------------- identity

def split_message(text):
    """(commit message, diff) of a patch body."""
    lines = text.split('\n')
    message_end = diff_start = None
    for i, line in enumerate(lines):
        if message_end is None and line.rstrip() == '---':
            message_end = i
        next_line = lines[i + 1] if i + 1 < len(lines) else ''
        if line.startswith('diff --git ') or (line.startswith('--- ') and next_line.startswith('+++ ')):
            diff_start = i
            break
    if diff_start is None:
        diff_start = len(lines)
    if message_end is None:
        message_end = diff_start
    return '\n'.join(lines[:message_end]), '\n'.join(lines[diff_start:])


def patch_identity(raw):
    """The part of one patch mail the identity hashes (see the docstring)."""
    mail = Mail('', raw, '')
    message, diff = split_message(mail.text())
    kept = [line.rstrip() for line in message.split('\n') if not REVIEW_TRAILER.match(line)]
    message = '\n'.join(kept).strip('\n')
    diff = SIGNATURE.sub('\n', diff).rstrip('\n')
    text = '%s\n\n%s\n\n%s\n' % (strip_prefix(mail.subject), message, diff)
    return text.encode('utf-8', 'surrogateescape')


def series_identity(raws):
    """16 hex digits identifying a list of raw patch mails."""
    h = hashlib.sha256()
    for raw in raws:
        piece = patch_identity(raw)
        h.update(b'%d\n' % len(piece))
        h.update(piece)
    return h.hexdigest()[:16]


def cmd_id(args):
    """The id subcommand."""
    if not os.path.isdir(args.dir):
        raise UsageError('DIR does not exist or is not a directory: %s' % args.dir)
    manifest_path = os.path.join(args.dir, 'manifest.json')
    if not os.path.isfile(manifest_path):
        raise Refusal(args.dir, 'not a split output directory: no manifest.json')
    try:
        with open(manifest_path, encoding='utf-8') as f:
            files = [p['file'] for p in json.load(f)['patches']]
    except (ValueError, KeyError, TypeError) as e:
        raise Refusal(manifest_path, 'unreadable manifest: %s' % e)
    if not files:
        raise Refusal(manifest_path, 'no patches')
    raws = []
    for name in files:
        path = os.path.join(args.dir, name)
        if not os.path.isfile(path):
            raise Refusal(path, 'missing, though manifest.json names it')
        with open(path, 'rb') as f:
            raws.append(f.read())
    print(series_identity(raws))
    return EXIT_OK


# -------------------------------------------------------------------- CLI

class Parser(argparse.ArgumentParser):
    """argparse, with usage errors as 'error: ...' and exit 2."""

    def error(self, message):
        raise UsageError('%s (see %s --help)' % (message, self.prog))


def build_parser():
    """The command line parser."""
    parser = Parser(prog=PROG, description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    split = sub.add_parser('split', help='split SOURCE into DIR/0001.patch ... and manifest.json',
                           description='Split SOURCE (a directory, an mbox or a patch) '
                           'into DIR/0001.patch, ... and DIR/manifest.json.')
    split.add_argument('source', metavar='SOURCE',
                       help='a directory (with or without a series file), an mbox or a patch')
    split.add_argument('--out', required=True, metavar='DIR',
                       help='output directory; must be absent or empty')
    split.add_argument('--version', type=int, metavar='N',
                       help='take version N (default: the newest complete version)')
    split.set_defaults(func=cmd_split)
    ident = sub.add_parser('id', help='print the 16-hex-digit identity of a split output',
                           description='Print the identity of a split output directory '
                           '(see "%s --help" for what is hashed).' % PROG)
    ident.add_argument('dir', metavar='DIR', help='a directory written by "split"')
    ident.set_defaults(func=cmd_id)
    return parser


def main(argv=None):
    """Run the command line; return the exit status, never raise."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors='backslashreplace')
        except (AttributeError, ValueError):
            pass
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except UsageError as e:
        print('error: %s' % one_line(str(e)), file=sys.stderr)
        return EXIT_USAGE
    except Refusal as e:
        print('INFRA ERROR: %s: %s' % (one_line(e.where), one_line(e.reason)), file=sys.stderr)
        return EXIT_INFRA
    except OSError as e:        # unreadable source, unwritable output
        print('INFRA ERROR: %s: %s' % (e.filename or PROG, e.strerror or e), file=sys.stderr)
        return EXIT_INFRA
    except SystemExit as e:     # --help
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print('INFRA ERROR: %s: interrupted' % PROG, file=sys.stderr)
        return EXIT_INFRA
    except Exception as e:      # never a traceback
        print('INFRA ERROR: %s: internal error: %s: %s'
              % (PROG, type(e).__name__, one_line(str(e))), file=sys.stderr)
        return EXIT_INFRA


if __name__ == '__main__':
    sys.exit(main())
