#!/usr/bin/perl
# Every path a comment or a document names exists: repository paths
# (src/..., test/..., docs/..., sql/..., scripts/..., debian/..., demo/...),
# file names written alone (key_encoder.hpp, README.md), markdown links
# and their #anchors, and "Section" references to a document's headings.
# Prints each one that does not, and exits 1 if there is any. Run from the
# repository's top directory (ctest does: Boundary.EveryNamedPathExists).
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

for my $file (sort @files) {
    next if $file =~ /\.(gz|deb|png|csv|out|pdf|jar|class)$/ || $file =~ m{^(?:test/upgrade|docs/comparisons/out)/};
    next if $file eq 'test/named_paths.pl';
    open my $fh, '<', $file or next;
    my $text = do { local $/; <$fh> };
    next if $text =~ /\0/;
    (my $dir = $file) =~ s{/?[^/]*$}{};
    for my $line (split /\n/, prose($file, $text)) {
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
        # A section named in quotes after its document: README "Settings".
        while ($line =~ m{\b((?:[\w.-]+/)*[\w-]+\.md|README)(?:'s)?,?\s+"([^"]+)"}g) {
            my ($doc, $section) = ($1, $2);
            $doc = 'README.md' if $doc eq 'README';
            $doc = "$dir/$doc" if !$exists{$doc} && $exists{"$dir/$doc"};
            next unless $exists{$doc};
            missing($file, "names section \"$section\" of $doc, which has no such heading")
                unless has_heading($doc, $section);
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
