#!/usr/bin/env python3
"""Build mail fixtures of scripts/series.py from kernel-patches/.

  gate-fixtures/mail/make-fixtures.py OUTDIR [--patches DIR]

Reads the series of kernel-patches/ (its 'series' file and its cover
letter 0000-cover-letter.patch) and writes into OUTDIR (created if need be):

  with-cover.mbox     the cover letter, then the patches, as
                      'git format-patch --cover-letter --stdout' gives them
  with-replies.mbox   the same with two review replies, after patch 2
                      ('Re:', a quoted hunk) and after patch 5 ('Re:', an
                      unquoted diff that would not apply, a Reviewed-by:
                      line), and a Reviewed-by: trailer in patch 3 itself,
                      just above its '---' line
  v1-and-v2.mbox      v2 (subjects '[PATCH v2 nn/N]', with its cover
                      letter) first, then v1 (the patches as they are,
                      the last one with an extra 'v1 text' line in its
                      commit message)
  missing-patch.mbox  the cover letter and every patch but patch 7
  empty-patch.mbox    the cover letter and the patches, patch 1 with its
                      commit message but no diff (an empty patch)

The fixtures are built at test time from the series as it is, so they
never go stale; nothing generated is committed.  Folded Subject lines stay
folded.  series.py must take the patches of kernel-patches/ (same
'series.py id') from the first three, refuse missing-patch.mbox naming
7/N and empty-patch.mbox naming patch 1 as empty.

Exit status: 0 written; 2 usage error; 3 kernel-patches/ is missing a
file or a patch is not in the expected format ('INFRA ERROR: ...').
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROG = 'make-fixtures.py'
COVER = '0000-cover-letter.patch'
MISSING = 7            # the patch missing-patch.mbox leaves out
FROM_LINE = b'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
REVIEWER = b'A Reviewer <reviewer@example.org>'


class Infra(Exception):
    """kernel-patches/ is not as expected: exit 3."""


def read(path):
    """The bytes of path, ending in a newline and starting with a From line."""
    if not os.path.isfile(path):
        raise Infra('missing file: %s' % path)
    with open(path, 'rb') as f:
        data = f.read()
    if not data.endswith(b'\n'):
        data += b'\n'
    if not data.startswith(b'From '):
        data = FROM_LINE + data
    return data


def load_series(patches_dir):
    """(cover letter, [patches]) of a series directory, as bytes."""
    series = os.path.join(patches_dir, 'series')
    if not os.path.isfile(series):
        raise Infra('missing file: %s' % series)
    with open(series, encoding='utf-8') as f:
        names = [line.strip() for line in f]
    names = [n for n in names if n and not n.startswith('#')
             and not os.path.basename(n).startswith('0000-')]
    patches = [read(os.path.join(patches_dir, n)) for n in names]
    if len(patches) < MISSING:
        raise Infra('%s names %d patches; the fixtures need at least %d'
                    % (series, len(patches), MISSING))
    return read(os.path.join(patches_dir, COVER)), patches


def split_mail(raw):
    """(header block, body) of a mail: the header block ends with its blank line."""
    end = raw.find(b'\n\n')
    if end < 0:
        raise Infra('a mail without a body: %r' % raw[:80])
    return raw[:end + 2], raw[end + 2:]


def subject_value(raw):
    """The Subject value as written, folding kept (without 'Subject:')."""
    header, _ = split_mail(raw)
    m = re.search(rb'^Subject:((?:.*\n)(?:[ \t].*\n)*)', header, re.M)
    if not m:
        raise Infra('a mail without a Subject: %r' % raw[:80])
    return m.group(1)


def as_version(raw, version):
    """The mail with '[PATCH ' of its subject made '[PATCH vN '."""
    header, body = split_mail(raw)
    new, count = re.subn(rb'^Subject: \[PATCH ', b'Subject: [PATCH v%d ' % version,
                         header, count=1, flags=re.M)
    if not count:
        raise Infra('a subject not starting with [PATCH: %r' % subject_value(raw))
    return new + body


def above_separator(raw, lines):
    """The mail with lines (bytes) inserted just above its '---' line."""
    header, body = split_mail(raw)
    m = re.search(rb'^---$', body, re.M)
    if not m:
        raise Infra("a patch without a '---' line: %r" % subject_value(raw))
    return header + body[:m.start()] + lines + body[m.start():]


def without_diff(raw):
    """The mail up to its '---' line: a commit message and no change."""
    header, body = split_mail(raw)
    m = re.search(rb'^---$', body, re.M)
    if not m:
        raise Infra("a patch without a '---' line: %r" % subject_value(raw))
    return header + body[:m.end()] + b'\n'


def message_id(k):
    """The Message-Id a reply gives for patch k (the patches carry none)."""
    return b'<fusegate-patch-%02d@localhost>' % k


def reply(patch, k, text, date):
    """A reply to patch k: 'Re:' its subject (still folded), then text."""
    return (b'From reviewer@example.org Thu Dec  3 %s 2026\n' % date
            + b'From: ' + REVIEWER + b'\n'
            + b'Date: Thu, 3 Dec 2026 %s +0000\n' % date
            + b'Subject: Re:' + subject_value(patch)
            + b'Message-Id: <review-%02d@example.org>\n' % k
            + b'In-Reply-To: ' + message_id(k) + b'\n'
            + b'References: ' + message_id(k) + b'\n'
            + b'\n' + text)


QUOTED_REVIEW = b"""On Thu, Dec 03, 2026, fusegate developers wrote:
> diff --git a/fs/fuse/dev.c b/fs/fuse/dev.c
> index 1111111..2222222 100644
> --- a/fs/fuse/dev.c
> +++ b/fs/fuse/dev.c
> @@ -100,6 +100,8 @@ static void fuse_request_init(struct fuse_mount *fm,
>  	refcount_set(&req->count, 1);
> +	req->compound = NULL;

Is this reset needed here?  The request is zeroed on allocation anyway.

Thanks,
Reviewer
"""

UNQUOTED_REVIEW = b"""This looks right to me.  A nit, as a suggested fix (untested):

diff --git a/fs/fuse/dev.c b/fs/fuse/dev.c
--- a/fs/fuse/dev.c
+++ b/fs/fuse/dev.c
@@ -1,3 +1,3 @@
 /* a context line that is in no version of this file */
-static int reviewer_suggestion_old;
+static int reviewer_suggestion_new;

With or without it:

Reviewed-by: """ + REVIEWER + b'\n'


def fixtures(cover, patches):
    """{file name: bytes} of every fixture."""
    with_cover = cover + b''.join(patches)
    replies = [cover]
    for k, patch in enumerate(patches, 1):
        if k == 3:
            patch = above_separator(patch, b'\nReviewed-by: ' + REVIEWER + b'\n')
        replies.append(patch)
        if k == 2:
            replies.append(reply(patch, k, QUOTED_REVIEW, b'10:02:00'))
        if k == 5:
            replies.append(reply(patch, k, UNQUOTED_REVIEW, b'10:05:00'))
    v2 = [as_version(m, 2) for m in [cover] + patches]
    v1 = [cover] + patches[:-1] + [above_separator(patches[-1], b'\nv1 text\n')]
    missing = [cover] + [p for k, p in enumerate(patches, 1) if k != MISSING]
    return {
        'with-cover.mbox': with_cover,
        'with-replies.mbox': b''.join(replies),
        'v1-and-v2.mbox': b''.join(v2 + v1),
        'missing-patch.mbox': b''.join(missing),
        'empty-patch.mbox': b''.join([cover, without_diff(patches[0])] + patches[1:]),
    }


def main(argv=None):
    """Write the fixtures; return the exit status."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('outdir', metavar='OUTDIR', help='where to write the mboxes')
    parser.add_argument('--patches', metavar='DIR', default=os.path.join(ROOT, 'kernel-patches'),
                        help='the series directory (default: kernel-patches/)')
    args = parser.parse_args(argv)
    try:
        cover, patches = load_series(args.patches)
        os.makedirs(args.outdir, exist_ok=True)
        for name, data in fixtures(cover, patches).items():
            path = os.path.join(args.outdir, name)
            with open(path, 'wb') as f:
                f.write(data)
            print(path)
    except Infra as e:
        print('INFRA ERROR: %s: %s' % (PROG, e), file=sys.stderr)
        return 3
    except OSError as e:
        print('INFRA ERROR: %s: %s: %s' % (PROG, e.filename, e.strerror), file=sys.stderr)
        return 3
    return 0


if __name__ == '__main__':
    sys.exit(main())
