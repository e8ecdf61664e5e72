#!/usr/bin/perl
# test/named_paths.pl fails on every form of bad pointer it checks: in a
# throwaway tree with a README.md and a docs/reference.md of known
# headings and table rows, a file of good pointers (each form naming a
# section or row that exists) passes, and each injected bad pointer, one a
# file, is reported by that file's name: a section in quotes after its
# document or in parentheses, "X section" after a possessive, a table row,
# each also split across the lines of a comment, and the pointers into the
# README that name no section. Run from the repository's top directory
# (ctest: Boundary.NamedPathsCatchBadPointers).
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Path qw(make_path);
use File::Temp qw(tempdir);

my $checker = abs_path('test/named_paths.pl');
my $tree = tempdir(CLEANUP => 1);

sub write_file {
    my ($path, $text) = @_;
    (my $dir = "$tree/$path") =~ s{/[^/]*$}{};
    make_path($dir);
    open my $fh, '>', "$tree/$path" or die "$path: $!";
    print $fh $text;
}

write_file('README.md', "# Project\n\n## Install\n\n## The commands of the repository\n");
write_file('docs/reference.md', "# Reference\n\n## Mechanisms\n\n| mechanism | output |\n|---|---|\n"
                                . "| `congenial` | integer |\n\n## Settings\n");
write_file('src/good.cpp', <<'GOOD');
// README.md, "Install"; README ("Install"); README.md ("The commands of the
// repository"); docs/reference.md, "Mechanisms", the `congenial` row;
// README's Install section; docs/reference.md's "Settings" section; the
// table in docs/reference.md, "Mechanisms".
GOOD
my %bad = (
    'src/quoted.cpp'      => qq{// Field names: docs/reference.md, "Release metadata".\n},
    'src/split_quoted.cpp'=> qq{// Field names are documented in docs/reference.md,\n// "Release metadata".\n},
    'src/parens.cpp'      => qq{// Field names are documented in README.md ("Release metadata").\n},
    'src/section.cpp'     => qq{// As README's Settings section says.\n},
    'src/row.cpp'         => qq{// README.md, the `congenial` row of the mechanism table.\n},
    'src/split_row.cpp'   => qq{// docs/reference.md, "Mechanisms", the `cascade`\n// row.\n},
    'src/says.cpp'        => qq{// Floating-point noise is not bit-exact. README says so.\n},
    'src/colon.cpp'       => qq{    // README: delta is NULL for the pure-epsilon mechanisms.\n},
    'src/table.hpp'       => qq{// The catalogue (README.md, the mechanism table\n// under dp.privatize).\n},
    'test/command.sh'     => qq{#!/bin/sh\n# CI: exactly the README's test command.\n},
    'sql/roles.sql'       => qq{-- Under attack, by each role the README describes.\n},
    'docs/guide.md'       => qq{# Guide\n\nSee [the reference](reference.md#no-such-heading).\n},
);
write_file($_, $bad{$_}) for keys %bad;

my $out = `cd '$tree' && perl '$checker' 2>&1`;
my $status = $? >> 8;
my $failed = 0;
sub check {
    my ($ok, $what) = @_;
    print(($ok ? 'ok' : 'not ok'), " - $what\n");
    $failed++ unless $ok;
}
check($status == 1, 'named_paths.pl exits 1 on the bad pointers');
check($out !~ m{^src/good\.cpp:}m ? 1 : 0, 'every good pointer passes');
for my $file (sort keys %bad) {
    check($out =~ m{^\Q$file\E:}m ? 1 : 0, "the bad pointer in $file is reported");
}
print "--- named_paths.pl said:\n$out" if $failed || $ENV{VERBOSE};
exit($failed ? 1 : 0);
