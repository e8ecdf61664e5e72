#!/usr/bin/perl
# test/test_index.pl fails when a mechanism of the catalogue lacks its test
# files: given a copy of the catalogue (src/core/mechanisms/mechanism.cpp)
# with one made-up mechanism added, it must exit 1 and name both files the
# made-up one lacks; given the copy without it, it must pass (so the
# failure is the mechanism's, not the copy's); and given a copy without a
# mechanism that docs/reference.md documents, it must name that one. Run
# from the repository's top directory (ctest:
# Boundary.TestIndexCatchesAMechanismWithoutTests).
use strict;
use warnings;
use File::Temp qw(tempdir);

my $catalogue = 'src/core/mechanisms/mechanism.cpp';
my $text = do { open my $fh, '<', $catalogue or die "$catalogue: $!"; local $/; <$fh> };
my $dir = tempdir(CLEANUP => 1);
my $failed = 0;

sub check {
    my ($ok, $what) = @_;
    print(($ok ? 'ok' : 'not ok'), " - $what\n");
    $failed++ unless $ok;
    return $ok;
}

# Runs test/test_index.pl on a catalogue of the given text: its exit status
# and what it printed.
sub index_on {
    my ($name, $catalogue_text) = @_;
    my $file = "$dir/$name.cpp";
    open my $fh, '>', $file or die "$file: $!";
    print $fh $catalogue_text;
    close $fh;
    my $out = `perl test/test_index.pl '$file' 2>&1`;
    return ($? >> 8, $out);
}

my ($status, $out) = index_on('copy', $text);
check($status == 0, 'the catalogue copied as it is passes') or print "--- test_index.pl said:\n$out";

my $fake = 'made_up_mechanism';
(my $with_fake = $text) =~ s/(\{Mechanism::(\w+),\s*"\w+")/{Mechanism::$2, "$fake", true, false, false, Family::None, false, false,\n     discrete_laplace_behaviour},\n    $1/
    or die "no row of the catalogue found in $catalogue\n";
($status, $out) = index_on('fake', $with_fake);
my $ok = check($status == 1, "a catalogue with mechanism $fake fails");
$ok &= check($out =~ m{^mechanism \Q$fake\E has no test/unit/mechanisms/test_\Q$fake\E\.cpp$}m ? 1 : 0,
             'its missing unit test file is named');
$ok &= check($out =~ m{^mechanism \Q$fake\E has no test/stat/mechanisms/stat_\Q$fake\E\.cpp$}m ? 1 : 0,
             'its missing statistical test file is named');
print "--- test_index.pl said:\n$out" unless $ok;

(my $without = $text) =~ s/\{Mechanism::\w+,\s*"congenial"[^}]*\},//s or die "no congenial row in $catalogue\n";
($status, $out) = index_on('without', $without);
check($status == 1 && $out =~ /^mechanism congenial of docs\/reference\.md is not a row of the catalogue/m,
      'a catalogue without congenial fails, naming it') or print "--- test_index.pl said:\n$out";
exit($failed ? 1 : 0);
