#!/usr/bin/perl
# Every path a comment or a document names exists: repository paths
# (src/..., test/..., docs/..., sql/..., scripts/..., debian/..., demo/...),
# file names written alone (key_encoder.hpp, README.md), markdown links
# and their #anchors, and the sections and rows a pointer names in a
# document: README.md, "Install"; README.md ("Install"); README's Install
# section; docs/mechanisms.md, the `congenial` row (a table row whose first
# cell is that name), each also across the lines of one comment. A pointer
# into the top README.md that names no section ("README says so", "README:
# ...", "the README's test command", "README.md, the mechanism table") is
# refused too: sections move (most of the README's did, to docs/), and only
# a named one can be checked. Prints each one that does not exist, and
# exits 1 if there is any. Run from the repository's top directory (ctest
# does: Boundary.EveryNamedPathExists; test/named_paths_test.pl shows each
# form of bad pointer fails).
use strict;
use warnings;
use File::Find;

my (@files, %exists, %basename);
find({ no_chdir => 1, wanted => sub {
    my $path = $File::Find::name;
    $path =~ s{^\./}{};
    if (-d $_ && $path =~ m{^(?:build|\.git|results|log|tmp_check)(?:/|$)}) { $File::Find::prune = 1; return; }
    return if $path eq '.';
    $exists{$path} = 1;
    (my $name = $path) =~ s{.*/}{};
    $basename{$name} = 1;
    push @files, $path if -f $_;
} }, '.');

# The headings of a markdown file: their anchors, as GitHub makes them,
# and their texts (lower case, without markup).
my (%anchors, %headings);
sub read_headings {
    my ($file) = @_;
    return if $anchors{$file};
    my (%anchor, @texts);
    if (open my $fh, '<', $file) {
        my $fenced = 0;
        while (<$fh>) {
            $fenced = !$fenced if /^```/;
            next if $fenced || !/^#+\s+(.*?)\s*$/;
            my $heading = $1;
            (my $text = lc $heading) =~ s/[`*]//g;
            push @texts, $text;
            (my $slug = lc $heading) =~ s/[^\w\- ]//g;
            $slug =~ s/ /-/g;
            $anchor{$slug} = 1;
        }
    }
    $anchors{$file} = \%anchor;
    $headings{$file} = \@texts;
}
sub anchors_of { read_headings($_[0]); return $anchors{$_[0]}; }
sub has_heading {
    my ($file, $quoted) = @_;
    read_headings($file);
    return grep { index($_, lc $quoted) == 0 } @{$headings{$file}};
}

# Whether a markdown file has a table row whose first cell starts with `name`.
my %rows;
sub has_row {
    my ($file, $name) = @_;
    if (!$rows{$file}) {
        my %first;
        if (open my $fh, '<', $file) {
            while (<$fh>) { $first{$1} = 1 if /^\|\s*`([^`]+)`/ }
        }
        $rows{$file} = \%first;
    }
    return $rows{$file}{$name};
}

# What a file says in prose: comments of code, the whole of a document.
sub prose {
    my ($file, $text) = @_;
    return $text if $file =~ /\.md$/;
    my $out = '';
    if ($file =~ /\.(c|h|cpp|hpp|java)$/) {
        while ($text =~ m{//[^\n]*|/\*.*?\*/}gs) { $out .= "$&\n" }
    } elsif ($file =~ /\.sql$/) {
        while ($text =~ m{--[^\n]*}g) { $out .= "$&\n" }
    } else {
        while ($text =~ m{(?:^|\s)#[^\n]*}gm) { $out .= "$&\n" }
    }
    return $out;
}

# A name standing for many: src/sql/extension/NN_feature.sql, invariant_dp--V.sql.
my $placeholder = qr/\bNN_|\b(?:V|FROM|X\.Y\.Z)\b/;

my $missing = 0;
sub missing { my ($file, $what) = @_; print "$file: $what\n"; $missing++; }

# A document named in prose: a markdown path, README.md, or README alone
# (the top one).
my $doc_name = qr{(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md|README)};
sub document {
    my ($dir, $doc) = @_;
    $doc = 'README.md' if $doc eq 'README';
    $doc = "$dir/$doc" if !$exists{$doc} && $exists{"$dir/$doc"};
    return $exists{$doc} ? $doc : undef;
}

# The sections and rows the prose points at, its comments' lines joined
# (their markers dropped) so that a pointer may run across them.
sub check_pointers {
    my ($file, $dir, $prose) = @_;
    my $text = $prose;
    $text =~ s{^[ \t]*(?://+|/?\*+/?|--|#+)[ \t]?}{}mg unless $file =~ /\.md$/;
    $text =~ s{\s*\n\s*}{ }g;
    # A section in quotes after its document, or in parentheses: README.md,
    # "Install"; README "Install"; README.md ("Install"); a row may follow.
    while ($text =~ m{${doc_name}(?:'s)?(?:,?\s+"([^"]+)"|\s+\(\s*"([^"]+)"\s*\))}g) {
        my ($doc, $section) = (document($dir, $1), $2 // $3);
        next unless $doc;
        missing($file, "names section \"$section\" of $doc, which has no such heading") unless has_heading($doc, $section);
    }
    # README's Install section (the section's name unquoted or quoted).
    while ($text =~ m{${doc_name}'s\s+"?([A-Za-z][\w ,()-]*?)"?\s+section\b}g) {
        my ($doc, $section) = (document($dir, $1), $2);
        next unless $doc;
        missing($file, "names section \"$section\" of $doc, which has no such heading") unless has_heading($doc, $section);
    }
    # A row of a table: docs/mechanisms.md, "The mechanisms", the `congenial` row.
    while ($text =~ m{$doc_name(?:,?\s+"[^"]*")?,?\s+the\s+`([^`]+)`\s+row\b}g) {
        my ($doc, $row) = (document($dir, $1), $2);
        next unless $doc;
        missing($file, "names the `$row` row of $doc, which no table of it has") unless has_row($doc, $row);
    }
    # The top README named with no section: markdown links are checked as links.
    (my $plain = $text) =~ s{\[[^\]]*\]\([^)]*\)}{}g;
    my $readme = qr{(?<![\w/.-])README(?:\.md)?};
    while ($plain =~ m{(?:${readme}(?:'s)?\s+(?:says|describes|documents|explains|lists|gives|states)\b
                        |$readme:\s
                        |\bthe\s+${readme}'s\s+(?!")[\w ]*?\b(?:table|command|list|example)s?\b
                        |$readme,\s+the\s+(?!`)[\w ]*?\btable\b)}gx) {
        missing($file, "points into README.md without naming a section: \"$&\"");
    }
}

for my $file (sort @files) {
    next if $file =~ /\.(gz|deb|png|csv|out|pdf|jar|class)$/ || $file =~ m{^(?:test/upgrade|docs/comparisons/out)/};
    next if $file eq 'test/named_paths.pl';
    open my $fh, '<', $file or next;
    my $text = do { local $/; <$fh> };
    next if $text =~ /\0/;
    (my $dir = $file) =~ s{/?[^/]*$}{};
    my $prose = prose($file, $text);
    check_pointers($file, $dir, $prose);
    for my $line (split /\n/, $prose) {
        next if $line =~ m{github\.com|https?://};   # another repository's paths
        while ($line =~ m{(?<![\w/.\$\{%\@-])((?:src|test|sql|expected|docs|scripts|debian|demo)/[\w./-]*\w)([-_]?\*?)}g) {
            my ($path, $tail) = ($1, $2);
            my $glob = $tail =~ /\*/;
            next if $path =~ /\.o$/ || $path =~ /$placeholder/;   # an object file; a placeholder
            next if $glob ? grep({ index($_, $path) == 0 } keys %exists) : $exists{$path};
            missing($file, "names $path");
        }
        while ($line =~ m{(?<![\w/.\$\{%\@-])([\w][\w-]*\.(?:md|cpp|hpp|sql|sh))\b(?![\w-])}g) {
            my $name = $1;
            next if $name =~ /$placeholder/;
            missing($file, "names $name") unless $basename{$name};
        }
        next unless $file =~ /\.md$/;
        while ($line =~ m{\]\(([^)\s]+)\)}g) {
            my $link = $1;
            next if $link =~ m{^(?:https?|mailto):};
            my ($target, $anchor) = split /#/, $link, 2;
            my $path = $target eq '' ? $file : ($dir eq '' ? $target : "$dir/$target");
            1 while $path =~ s{[^/]+/\.\./}{};
            $path =~ s{/$}{};
            if (!$exists{$path}) { missing($file, "links to $link"); next; }
            missing($file, "links to #$anchor, which $path has no heading for")
                if defined $anchor && $path =~ /\.md$/ && !anchors_of($path)->{$anchor};
        }
    }
}
print "$missing named paths do not exist\n" if $missing;
exit($missing ? 1 : 0);
