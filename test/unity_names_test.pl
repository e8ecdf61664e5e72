#!/usr/bin/perl
# test/unity_names.pl fails on the clashes it looks for: in a throwaway test
# tree, two files of test/unit declaring one name in the same anonymous
# namespace (a function with different parameters, which unity batches
# would compile as overloads; a type; a variable; a file-level static) are
# each reported, while the same names in different namespaces, in two
# binaries, in comments and strings, as members and locals, or as members
# defined out of their classes (Holder::value) are not.
# With --files, the files of one tree that share a name are listed. Run
# from the repository's top directory (ctest:
# Boundary.TestNamesCheckCatchesClashes).
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Path qw(make_path);
use File::Temp qw(tempdir);

my $checker = abs_path('test/unity_names.pl');
my $failed = 0;

sub check {
    my ($ok, $what) = @_;
    print(($ok ? 'ok' : 'not ok') . " - $what\n");
    $failed++ unless $ok;
}

# Runs the checker (with these options first) on a tree of these files;
# returns (exit status, output).
sub run_with {
    my ($options, %files) = @_;
    my $tree = tempdir(CLEANUP => 1);
    for my $path (keys %files) {
        (my $dir = "$tree/$path") =~ s{/[^/]*$}{};
        make_path($dir);
        open my $fh, '>', "$tree/$path" or die "$path: $!";
        print $fh $files{$path};
    }
    my $out = `perl $checker $options $tree 2>&1`;
    $out =~ s{\Q$tree\E/}{}g;
    return ($? >> 8, $out);
}
sub run_on { return run_with('', @_) }

my $first = <<'CPP';
#include <gtest/gtest.h>
namespace invariant_dp {
namespace {
int reach(double x) { return int(x); }
struct Case { int n; };
constexpr int kDraws = 10;
// int commented(int);
const char* text = "int quoted(int);";
struct FirstHolder { int value(int x); };
int FirstHolder::value(int x) { return x; }
constexpr unsigned long kFirstShift = (unsigned long){1} << 50;
}  // namespace
static int file_static(int x) { return x; }
TEST(A, B) { int local = reach(1.0); struct Inner { int member; }; EXPECT_EQ(local, 1); }
}  // namespace invariant_dp
CPP
my $second = <<'CPP';
namespace invariant_dp {
namespace {
int reach(int n) { return n; }
class Case {};
int kDraws = 3;
int commented(int x) { return x; }
int quoted(int x) { return x; }
int member = 0;
struct SecondHolder { int value(int x); };
int SecondHolder::value(int x) { return x; }
constexpr unsigned long kSecondShift = (unsigned long){1} << 50;
}  // namespace
static int file_static(long x) { return int(x); }
namespace hierarchy {
namespace {
int other_namespace(int x) { return x; }
}  // namespace
}  // namespace hierarchy
}  // namespace invariant_dp
CPP
my $third = <<'CPP';
namespace invariant_dp {
namespace {
int other_namespace(int x) { return x; }
int local(int x) { return x; }
}  // namespace
}  // namespace invariant_dp
CPP

my ($status, $out) = run_on('unit/a/test_a.cpp' => $first, 'unit/b/test_b.cpp' => $second,
                            'stat/test_c.cpp' => $first, 'unit/test_d.cpp' => $third);
check($status == 1, 'exits 1 on clashes');
for my $name (qw(reach Case kDraws file_static)) {
    check($out =~ /^\Q$name\E \(in /m, "reports $name, declared in two files of one binary");
}
for my $name (qw(commented quoted member other_namespace local value 50)) {
    check($out !~ /^\Q$name\E \(in /m, "does not report $name");
}
check($out !~ /test_c\.cpp/, 'keeps the binaries apart');
my ($clean, $quiet) = run_on('unit/test_a.cpp' => $first, 'stat/test_b.cpp' => $second);
check($clean == 0 && $quiet eq '', 'exits 0 and prints nothing when no name is declared twice in one binary');
# --files DIR lists the files of one library that share a name, and only those.
my ($listed, $files) = run_with('--files', 'a/a.cpp' => $first, 'b/b.cpp' => $second, 'd.cpp' => $third);
check($listed == 0 && $files eq "a/a.cpp\nb/b.cpp\n", '--files lists the two files that share names, not the third');
print "--- unity_names.pl said:\n$out" if $failed || $ENV{VERBOSE};
exit($failed ? 1 : 0);
