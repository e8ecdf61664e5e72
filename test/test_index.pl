#!/usr/bin/perl
# test/README.md's index is complete and true: it names every function,
# view and aggregate of schema dp (src/sql/extension/*.sql) and every
# mechanism of docs/reference.md's table, and every test it names exists
# (a pg_regress suite sql/<name>.sql, a C++ test <name>.cpp anywhere under
# test/unit or test/stat, a name* standing for several). The C++ tests
# mirror the core: each folder under test/unit and test/stat is a folder
# of src/core, and every mechanism of the catalogue
# (src/core/mechanisms/mechanism.cpp) has its own unit and statistical
# test files, in test/unit/mechanisms and test/stat/mechanisms, named
# test_ and stat_ followed by its name; the catalogue's names are those of
# docs/reference.md's table, so a row the pattern misread cannot go
# unchecked. Run from the repository's top directory (ctest:
# Boundary.TestIndexIsComplete); an argument names another catalogue file
# to read instead (test/test_index_test.pl gives one with a made-up
# mechanism, which must fail).
use strict;
use warnings;
use File::Find;

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
my %documented;
for my $line (split /\n/, $table // '') {
    next unless $line =~ /^\| `(\w+)`/;
    $documented{$1} = 1;
    missing("test/README.md does not name mechanism $1") unless $index =~ /`\Q$1\E`/;
}

# The C++ tests, by name (file name without .cpp), wherever they lie under
# test/unit and test/stat; each folder there must be one of src/core.
my %cpp_tests;
find({ no_chdir => 1, wanted => sub {
    my $path = $File::Find::name;
    if (-d $path) {
        my ($sub) = $path =~ m{^test/(?:unit|stat)/(.+)$};
        missing("$path mirrors no folder of src/core") if defined $sub && !-d "src/core/$sub";
        return;
    }
    $cpp_tests{$1} = $path if $path =~ m{/(\w+)\.cpp$};
} }, 'test/unit', 'test/stat');

# Every mechanism of the catalogue, a row {Mechanism::Key, "name", ...},
# has its own test files, named after it.
my $catalogue_file = $ARGV[0] // 'src/core/mechanisms/mechanism.cpp';
my @catalogue = slurp($catalogue_file) =~ /\{Mechanism::\w+,\s*"(\w+)"/g;
my %in_catalogue = map { $_ => 1 } @catalogue;
missing("no mechanism found in $catalogue_file") unless @catalogue;
missing('no mechanism found in the table of docs/reference.md, "Mechanisms"') unless %documented;
for my $name (sort keys %documented) {
    missing("mechanism $name of docs/reference.md is not a row of the catalogue, $catalogue_file")
        unless $in_catalogue{$name};
}
for my $name (@catalogue) {
    for my $file ("test/unit/mechanisms/test_$name.cpp", "test/stat/mechanisms/stat_$name.cpp") {
        missing("mechanism $name has no $file") unless -e $file;
    }
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
        (my $pattern = quotemeta $test) =~ s/\\\*$/.*/;
        my @found = grep { /^$pattern$/ } keys %cpp_tests;
        missing("test/README.md names test $test, which test/unit and test/stat lack") unless @found;
    }
}
print "$missing entries of the test index are missing or wrong\n" if $missing;
exit($missing ? 1 : 0);
