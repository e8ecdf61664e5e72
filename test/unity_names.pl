#!/usr/bin/perl
# The test binaries compile their files in unity batches (CMakeLists.txt,
# INVARIANT_DP_TEST_BATCH): several files become one translation unit, so
# two files that declare the same name in the same anonymous namespace
# clash, and when the two are functions of different parameters they
# compile silently as overloads, each file then possibly calling the
# other's. Lists every name (type, alias, function, variable) declared at
# namespace scope inside an anonymous namespace, or as a file-level static,
# by more than one file of one binary (the .cpp files under test/unit, and
# those under test/stat) within the same enclosing namespaces. Exits 1 if
# there is any. Run from the repository's top directory, or give the test
# directory (ctest: Boundary.TestNamesUniqueAcrossUnityBatches).
use strict;
use warnings;
use File::Find;

# With --files DIR: the .cpp files under DIR (one library's sources) that
# share such a name with another, one per line, exit 0: CMakeLists.txt
# leaves them out of the core's unity batches (INVARIANT_DP_CORE_BATCH).
my $files_only = @ARGV && $ARGV[0] eq '--files' ? shift : undef;
my $root = shift // 'test';

# The source without comments, string and character literals (raw strings
# too) and preprocessor lines.
sub stripped {
    my ($src) = @_;
    my $out = '';
    my $n = length $src;
    my $i = 0;
    while ($i < $n) {
        my $c = substr($src, $i, 1);
        my $two = substr($src, $i, 2);
        if ($two eq '//') {
            my $j = index($src, "\n", $i);
            $i = $j < 0 ? $n : $j;
        } elsif ($two eq '/*') {
            my $j = index($src, '*/', $i + 2);
            $i = $j < 0 ? $n : $j + 2;
        } elsif ($two eq 'R"' && substr($src, $i) =~ /^R"([^(]*)\(/) {
            my $end = index($src, ")$1\"", $i);
            $i = $end < 0 ? $n : $end + length($1) + 2;
            $out .= '""';
        } elsif ($c eq '"' || $c eq "'") {
            my $j = $i + 1;
            while ($j < $n && substr($src, $j, 1) ne $c) { $j += substr($src, $j, 1) eq '\\' ? 2 : 1 }
            $out .= '""';
            $i = $j + 1;
        } elsif ($c eq '#' && ($i == 0 || substr($src, $i - 1, 1) eq "\n")) {
            my $j = $i;
            while (1) {
                my $k = index($src, "\n", $j);
                if ($k < 0) { $j = $n; last }
                if (substr($src, $k - 1, 1) eq '\\') { $j = $k + 1; next }
                $j = $k;
                last;
            }
            $i = $j;
        } else {
            $out .= $c;
            $i++;
        }
    }
    return $out;
}

my %keyword = map { $_ => 1 } qw(return if for while switch sizeof decltype static_assert operator alignas
                                 TEST TEST_F TEST_P INSTANTIATE_TEST_SUITE_P TYPED_TEST);

# The name a namespace-scope declaration declares, or undef.
sub declared {
    my ($stmt) = @_;
    (my $t = $stmt) =~ s/\s+/ /g;
    $t =~ s/^\s+|\s+$//g;
    return undef if $t eq '';
    return $1 if $t =~ /^(?:template\s*<.*?>\s*)?(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)/;
    return $1 if $t =~ /^using\s+(\w+)\s*=/;
    return undef if $t =~ /^(?:using|typedef)\b/ && $t !~ /^typedef.*?(\w+)\s*$/;
    return $1 if $t =~ /^typedef.*?(\w+)\s*$/;
    # A function or a variable: the identifier before the first '(', '=',
    # '[' or '{' outside template brackets.
    my $depth = 0;
    for my $j (0 .. length($t) - 1) {
        my $ch = substr($t, $j, 1);
        if ($ch eq '<') { $depth++ }
        elsif ($ch eq '>') { $depth-- }
        elsif ($ch =~ /[(=\[{]/ && $depth <= 0) {
            # A qualified name (Class::member defined out of its class)
            # declares nothing in the namespace.
            return undef unless substr($t, 0, $j) =~ /(::\s*)?(~?\w+)\s*$/;
            return defined $1 || $keyword{$2} ? undef : $2;
        }
    }
    # (A statement's tail after a braced initialiser, "<< 50", names nothing.)
    return $t =~ /([A-Za-z_]\w*)\s*$/ ? $1 : undef;
}

# (name, enclosing namespaces) of every name the file declares at
# namespace scope in an anonymous namespace or as a static.
sub names {
    my ($file) = @_;
    open my $fh, '<', $file or die "$file: $!";
    my $s = stripped(do { local $/; <$fh> });
    my (@stack, @path, %found);
    my $stmt = '';
    my $record = sub {
        my ($text) = @_;
        my $in_anon = grep { $_ eq 'anon' } @stack;
        return unless $in_anon || $text =~ /^\s*static\b/;
        my $name = declared($text);
        $found{join('::', @path) . " $name"} = 1 if defined $name;
    };
    for my $c (split //, $s) {
        my $at_namespace_scope = !grep { $_ eq 'other' } @stack;
        if ($c eq '{') {
            if ($at_namespace_scope && $stmt =~ /namespace\s*([\w:]*)\s*$/) {
                push @stack, $1 eq '' ? 'anon' : 'ns';
                push @path, $1 eq '' ? '{anon}' : $1;
            } else {
                $record->($stmt) if $at_namespace_scope;
                push @stack, 'other';
            }
            $stmt = '';
        } elsif ($c eq '}') {
            my $kind = pop @stack;
            pop @path if defined $kind && $kind ne 'other';
            $stmt = '';
        } elsif ($c eq ';') {
            $record->($stmt) if $at_namespace_scope;
            $stmt = '' if $at_namespace_scope;
        } elsif ($at_namespace_scope) {
            $stmt .= $c;
        }
    }
    return keys %found;
}

# Every name declared by more than one of these files: key => [files].
sub clashes_in {
    my ($dir) = @_;
    my @files;
    find({ no_chdir => 1, wanted => sub { push @files, $File::Find::name if -f $_ && /\.cpp$/ } }, $dir);
    my %where;
    for my $file (sort @files) { push @{ $where{$_} }, $file for names($file) }
    return map { $_ => $where{$_} } grep { @{ $where{$_} } > 1 } keys %where;
}

if (defined $files_only) {
    my %clash = clashes_in($root);
    my %file;
    $file{$_} = 1 for map { @$_ } values %clash;
    print "$_\n" for sort keys %file;
    exit 0;
}
my $clashes = 0;
for my $binary (qw(unit stat)) {
    next unless -d "$root/$binary";
    my %clash = clashes_in("$root/$binary");
    for my $key (sort keys %clash) {
        my ($scope, $name) = split / /, $key;
        print "$name (in $scope) is declared in " . join(', ', @{ $clash{$key} }) . "\n";
        $clashes++;
    }
}
exit($clashes ? 1 : 0);
