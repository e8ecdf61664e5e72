#!/usr/bin/perl
# The core's directories are floors: a file includes only files of its own
# directory, of lower floors, and the core's top-level headers (errors,
# interrupts, randomness, constants). A request walks down the floors once: the C
# boundary converts it, the release entry dispatches it, the mechanisms and
# hierarchies draw with the samplers and models below them, the accuracy
# library states the laws they draw from, and nothing below calls back up. Prints each include that goes up or sideways, and
# exits 1 if there is any. Run from the repository's top directory (ctest:
# Boundary.CoreLayers).
use strict;
use warnings;

# Bottom first; directories on one line are one floor and may not include
# each other.
my @floors = (
    [qw(invariants lattice)],
    [qw(samplers privacy)],
    [qw(calibration mcmc projection)],
    [qw(congenial hierarchy)],
    [qw(accuracy)],
    [qw(mechanisms)],
    [qw(request)],
    [qw(rollups)],
    [qw(release)],
    [qw(capi)],
);
my %floor;
for my $i (0 .. $#floors) { $floor{$_} = $i for @{$floors[$i]}; }

my $wrong = 0;
for my $file (sort glob 'src/core/*/*.{hpp,cpp}') {
    my ($dir) = $file =~ m{^src/core/([^/]+)/};
    if (!exists $floor{$dir}) { print "$file: directory $dir has no floor in test/core_layers.pl\n"; $wrong++; next; }
    open my $fh, '<', $file or die "$file: $!";
    while (my $line = <$fh>) {
        next unless $line =~ m{^\s*#\s*include\s+"\.\./([^/"]+)/};
        my $target = $1;
        next if $target eq $dir;
        if (!exists $floor{$target}) { print "$file includes $target, which has no floor\n"; $wrong++; next; }
        next if $floor{$target} < $floor{$dir};
        print "$file includes $target/ (floor $floor{$target}) from $dir/ (floor $floor{$dir})\n";
        $wrong++;
    }
}
print "$wrong includes go up or sideways\n" if $wrong;
exit($wrong ? 1 : 0);
