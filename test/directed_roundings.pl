#!/usr/bin/perl
# Directed roundings have one home, src/core/samplers/interval.hpp and
# interval.cpp: a certified bound anywhere else in the core composes
# Interval's operations, so each rounding direction is argued (and tested,
# test/unit/samplers/test_interval.cpp) once. Prints each line elsewhere in src/core
# that chooses a direction: an MPFR rounding mode other than to nearest, a
# rounding mode passed along in a variable, an MPFR rounding to an integer
# in one direction, the FPU's rounding mode, or a double stepped to its
# neighbour. Exits 1 if there is any, and also if interval.cpp itself no
# longer matches (the patterns would then pass by seeing nothing). Run from
# the repository's top directory (ctest: Boundary.DirectedRoundingOnlyInInterval).
use strict;
use warnings;
use File::Find;

my %home = map { $_ => 1 } qw(src/core/samplers/interval.hpp src/core/samplers/interval.cpp);
my $directed = qr/
    \b(?:MPFR|GMP)_RND[UDZA]\b
  | \bmpfr_rnd_t\b
  | \bmpfr_(?:floor|ceil|trunc|rint_floor|rint_ceil|rint_trunc)\b
  | \bfesetround\b | \bFE_(?:UPWARD|DOWNWARD|TOWARDZERO)\b
  | \bnext(?:after|toward)[fl]?\b
/x;

my @files;
find({ no_chdir => 1, wanted => sub { push @files, $File::Find::name if -f $_ && /\.(?:c|h|cpp|hpp)$/ } },
     'src/core');
die "no source under src/core: run from the repository's top directory\n" unless @files;

my ($wrong, $at_home) = (0, 0);
for my $file (sort @files) {
    open my $fh, '<', $file or die "$file: $!";
    while (my $line = <$fh>) {
        next unless $line =~ $directed;
        if ($home{$file}) { $at_home++; next; }
        print "$file:$.: $line";
        $wrong++;
    }
}
if (!$at_home) {
    print "interval.hpp and interval.cpp choose no rounding direction that test/directed_roundings.pl recognises\n";
    exit 1;
}
print "$wrong directed roundings outside src/core/samplers/interval.hpp and interval.cpp\n" if $wrong;
exit($wrong ? 1 : 0);
