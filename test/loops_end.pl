#!/usr/bin/perl
# Every loop ends. Each loop of the core whose number of passes is not the
# size of something it already holds: a `while`, a `do ... while`, a `for`
# with no condition (`for (;;)`, `for (x = a;; x += h)`), and a `for` that
# steps a floating-point counter (which stops moving once the step falls
# below its spacing), must either poll for cancellation in its body
# (`poll(`, `poll_every(`, `poll_scaled(`, `progress(`), or carry, on one of
# the three lines above it, a comment starting `// Ends:` that says why it
# ends soon (a rejection loop whose acceptance is bounded below, a search
# over at most 64 bits, ...). Prints each loop that does neither and exits 1
# if there is any; exits 1 as well if it finds no loop at all (the patterns
# would then pass by seeing nothing). Run from the repository's top
# directory (ctest: Boundary.EveryLoopEnds).
use strict;
use warnings;
use File::Find;

my @files;
find({ no_chdir => 1, wanted => sub { push @files, $File::Find::name if -f $_ && /\.(?:cpp|hpp)$/ } }, 'src/core');
die "no source under src/core: run from the repository's top directory\n" unless @files;

my $poll = qr/\b(?:poll|poll_every|poll_scaled|progress)\s*\(/;

# The text with comments and string literals blanked (kept the same length,
# newlines kept), so that braces and keywords inside them are not read.
sub code_only {
    my ($text) = @_;
    $text =~ s{(//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')}{
        my $m = $1; (my $blank = $m) =~ s/[^\n]/ /g; $blank }gse;
    return $text;
}

# Index just past the parenthesised group that starts at $i ('(').
sub close_paren {
    my ($code, $i) = @_;
    my $depth = 0;
    for (my $k = $i; $k < length $code; $k++) {
        my $c = substr($code, $k, 1);
        $depth++ if $c eq '(';
        $depth-- if $c eq ')';
        return $k + 1 if $depth == 0;
    }
    return length $code;
}

# The loop's body: a braced block, or one statement up to its ';'.
sub body_extent {
    my ($code, $i) = @_;
    $i++ while $i < length($code) && substr($code, $i, 1) =~ /\s/;
    if (substr($code, $i, 1) eq '{') {
        my $depth = 0;
        for (my $k = $i; $k < length $code; $k++) {
            my $c = substr($code, $k, 1);
            $depth++ if $c eq '{';
            $depth-- if $c eq '}';
            return ($i, $k + 1) if $depth == 0;
        }
        return ($i, length $code);
    }
    my $end = index($code, ';', $i);
    return ($i, $end < 0 ? length $code : $end + 1);
}

my ($loops, $open) = (0, 0);
for my $file (sort @files) {
    my %closing;  # positions of the `while` that ends each do-loop
    open my $fh, '<', $file or die "$file: $!";
    my $text = do { local $/; <$fh> };
    close $fh;
    my $code = code_only($text);
    my @lines = split /\n/, $text, -1;
    while ($code =~ /\b(while|for|do)\b/g) {
        my ($keyword, $at) = ($1, $-[0]);
        my ($body_start, $body_end);
        next if $closing{$at};
        if ($keyword eq 'do') {
            ($body_start, $body_end) = body_extent($code, $at + 2);
            $closing{$body_end + length($1)} = 1 if substr($code, $body_end) =~ /\A(\s*)while\b/;
            # do { ... } while (0): the statement macro's idiom, not a loop.
            next if substr($code, $body_end) =~ /\A\s*while\s*\(\s*(?:0|false)\s*\)/;
        } else {
            my $paren = index($code, '(', $at);
            next if $paren < 0 || substr($code, $at + length($keyword), $paren - $at - length($keyword)) =~ /\S/;
            my $after = close_paren($code, $paren);
            my $head = substr($code, $paren, $after - $paren);
            if ($keyword eq 'for') {
                # A range-for or a counted for with a condition and an integer counter: bounded by what it walks.
                next if $head =~ /:/ && $head !~ /;/;
                my @parts = split /;/, substr($head, 1, -1), -1;
                next unless @parts == 3;
                my $unconditioned = $parts[1] !~ /\S/;
                my $floating = $parts[0] =~ /^\s*(?:double|float)\s+\w+\s*=/;
                next unless $unconditioned || $floating;
            } else {
                # while (0): the statement macro's idiom, not a loop.
                next if $head =~ /^\(\s*(?:0|false)\s*\)$/;
            }
            ($body_start, $body_end) = body_extent($code, $after);
        }
        $loops++;
        next if substr($code, $body_start, $body_end - $body_start) =~ $poll;
        my $line = () = substr($code, 0, $at) =~ /\n/g;  # 0-based
        my $justified = 0;
        for my $k (($line >= 3 ? $line - 3 : 0) .. $line) {
            $justified = 1 if $lines[$k] =~ m{//\s*Ends:};
        }
        next if $justified;
        printf "%s:%d: %s\n", $file, $line + 1, $lines[$line] =~ s/^\s+//r;
        $open++;
    }
}
die "no loop found under src/core: the patterns no longer match the code\n" unless $loops;
if ($open) {
    print "$open of $loops unbounded loops neither poll for cancellation nor say why they end (// Ends: ...)\n";
    exit 1;
}
exit 0;
