#!/usr/bin/perl
# test/README.md's index is complete and true: it names every function,
# view and aggregate of schema dp (src/sql/extension/*.sql) and every
# mechanism of docs/reference.md's table, and every test it names exists
# (a pg_regress suite sql/<name>.sql, a C++ test test/unit/<name>.cpp or
# test/stat/<name>.cpp, a name* standing for several). Run from the
# repository's top directory (ctest: Boundary.TestIndexIsComplete).
use strict;
use warnings;

sub slurp { my ($f) = @_; open my $fh, '<', $f or die "$f: $!"; local $/; return <$fh>; }

my $index = slurp('test/README.md');
my $missing = 0;
sub missing { print "$_[0]\n"; $missing++; }

my %objects;
for my $file (glob 'src/sql/extension/*.sql') {
    my $sql = slurp($file);
    $objects{$1} = 1 while $sql =~ /CREATE OR REPLACE (?:FUNCTION|VIEW|AGGREGATE)\s+dp\.(\w+)/g;
}
for my $name (sort keys %objects) {
    missing("test/README.md does not name dp.$name") unless $index =~ /`dp\.\Q$name\E`/;
}

my $reference = slurp('docs/reference.md');
my ($table) = $reference =~ /^## Mechanisms\n(.*?)^## /ms;
for my $line (split /\n/, $table // '') {
    next unless $line =~ /^\| `(\w+)`/;
    missing("test/README.md does not name mechanism $1") unless $index =~ /`\Q$1\E`/;
}

# Tests named in the two index tables: backquoted names in their rows.
my ($tables) = $index =~ /^## Each SQL function and its tests\n(.*)/ms;
for my $row (grep { /^\|/ } split /\n/, $tables // '') {
    my @cells = split /\s*\|\s*/, $row;
    shift @cells;
    next if @cells < 3 || $cells[0] =~ /^-+$/ || $cells[1] =~ /^pg_regress/;
    for my $suite ($cells[1] =~ /`(\w+)`/g) {
        missing("test/README.md names suite $suite, which sql/ lacks") unless -e "sql/$suite.sql";
    }
    for my $test ($cells[2] =~ /`([\w\/.*-]+)`/g) {
        next if $test =~ m{/};   # a path: test/named_paths.pl checks those
        my @found = $test =~ /\*$/ ? (glob("test/unit/$test.cpp"), glob("test/stat/$test.cpp"))
                                   : grep { -e } ("test/unit/$test.cpp", "test/stat/$test.cpp");
        missing("test/README.md names test $test, which test/unit and test/stat lack") unless @found;
    }
}
print "$missing entries of the test index are missing or wrong\n" if $missing;
exit($missing ? 1 : 0);
