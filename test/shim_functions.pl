#!/usr/bin/perl
# The shim stays a shim (docs/design.md, "Architecture"): its functions
# unpack, call the core once and pack, so none of them needs more than a
# screen, and its files call each other one way, so that a reader can take
# them bottom up.
#  - No function of src/pg/*.c is longer than 60 lines, counted from its
#    opening brace to its closing one (src/pg/arguments.c, the options'
#    parser, is left out).
#  - No call loop between files: a file that uses a function another file
#    defines (a call, or its address taken) is used by it in no chain of
#    such uses, however long. A callback handed down as a pointer is the
#    way back up.
# Before reading src/pg, both checks are run on samples written below (a
# function of 61 lines, one of 60, two files that call each other, three in
# a ring, three in a line whose last has a static function of the first's
# name, names in a comment and a string), and the script fails if it
# misjudges any, so that a change to the parsing cannot make it pass by
# seeing nothing; it fails as well if it finds no function or no call
# between files in src/pg. Prints each long function and each loop, and
# exits 1 if there is any. Run from the repository's top directory (ctest:
# Boundary.ShimFunctions).
use strict;
use warnings;

my $max_lines = 60;
my %exempt_from_length = ('src/pg/arguments.c' => 1);

# The text with comments, string and character literals and preprocessor
# lines blanked (newlines kept), so that braces and names inside them are
# not read.
sub code_only {
    my ($text) = @_;
    $text =~ s{(//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')}{
        my $m = $1; (my $blank = $m) =~ s/[^\n]/ /g; $blank }gse;
    $text =~ s{^([ \t]*#(?:[^\n]*\\\n)*[^\n]*)}{
        my $m = $1; (my $blank = $m) =~ s/[^\n]/ /g; $blank }gme;
    return $text;
}

# The functions a file defines: name, first and last line (the braces),
# whether static. A definition is a brace at the top level after a
# parenthesised list with no '=' before it (a struct, an enum or an
# initializer is none).
sub functions_of {
    my ($code) = @_;
    my ($depth, $head, $line, $start, @functions) = (0, '', 1, 0);
    my $current;
    for my $c (split //, $code) {
        $line++ if $c eq "\n";
        if ($depth == 0) {
            if ($c eq '{') {
                $current = undef;
                if ($head =~ /\)\s*$/ && $head !~ /=/ && $head =~ /(\w+)\s*\(/) {
                    my $name = $1;
                    $current = { name => $name, static => $head =~ /\bstatic\b/ ? 1 : 0, first => $line };
                }
                ($depth, $head) = (1, '');
            } elsif ($c eq ';') {
                $head = '';
            } else {
                $head .= $c;
            }
        } elsif ($c eq '{') {
            $depth++;
        } elsif ($c eq '}' && --$depth == 0 && $current) {
            $current->{last} = $line;
            push @functions, $current;
        }
    }
    return @functions;
}

# Each function longer than the limit, as "file:line: name is N lines".
sub long_functions {
    my ($files) = @_;
    my @long;
    for my $file (sort keys %$files) {
        next if $exempt_from_length{$file};
        for my $f (functions_of(code_only($files->{$file}))) {
            my $lines = $f->{last} - $f->{first} + 1;
            push @long, "$file:$f->{first}: $f->{name} is $lines lines (at most $max_lines)" if $lines > $max_lines;
        }
    }
    return @long;
}

# Which file uses which: %$uses{a}{b} lists the functions of b that a names.
sub uses_between_files {
    my ($files) = @_;
    my (%code, %own, %defined_in, %uses);
    for my $file (keys %$files) {
        $code{$file} = code_only($files->{$file});
        for my $f (functions_of($code{$file})) {
            $own{$file}{$f->{name}} = 1;
            $defined_in{$f->{name}} = $file unless $f->{static};
        }
    }
    for my $file (sort keys %code) {
        my %seen;
        while ($code{$file} =~ /\b([A-Za-z_]\w*)\b/g) {
            my $owner = $defined_in{$1};
            # A file's own function (a static one may share another file's name).
            next unless defined $owner && !$own{$file}{$1} && !$seen{$1}++;
            push @{$uses{$file}{$owner}}, $1;
        }
    }
    return \%uses;
}

# Each loop of uses between files, once, as "a -> b (f, g) -> a (h)": a
# depth-first walk that reports the path back to a file still on it.
sub call_loops {
    my ($uses) = @_;
    my (%state, @path, @loops, %reported);
    my $walk;
    $walk = sub {
        my ($file) = @_;
        $state{$file} = 'open';
        push @path, $file;
        for my $next (sort keys %{$uses->{$file} || {}}) {
            if (($state{$next} // '') eq 'open') {
                my @ring = (@path[(grep { $path[$_] eq $next } 0 .. $#path)[0] .. $#path], $next);
                my $text = $ring[0];
                $text .= " -> $ring[$_] (" . join(', ', @{$uses->{$ring[$_ - 1]}{$ring[$_]}}) . ')' for 1 .. $#ring;
                push @loops, $text unless $reported{join ' ', sort @ring[0 .. $#ring - 1]}++;
            } elsif (!$state{$next}) {
                $walk->($next);
            }
        }
        pop @path;
        $state{$file} = 'done';
    };
    for my $file (sort keys %$uses) { $walk->($file) unless $state{$file}; }
    return @loops;
}

# --- the samples ------------------------------------------------------------
sub function_of_lines {
    my ($name, $lines, $static) = @_;
    return ($static ? "static " : "") . "void\n$name(int x)\n{\n" . ("\tx++;\n" x ($lines - 2)) . "}\n";
}
my @misjudged;
my %long_sample = ('long.c' => "/* { not code */\nstruct s\n{\n\tint a;\n};\n"
                   . function_of_lines('too_long', $max_lines + 1, 1) . function_of_lines('just_fits', $max_lines, 0));
my @long = long_functions(\%long_sample);
push @misjudged, "a function of " . ($max_lines + 1) . " lines passes" unless grep { /too_long/ } @long;
push @misjudged, "a function of $max_lines lines fails" if grep { /just_fits/ } @long;
my %pair = ('a.c' => "void\nfa(void)\n{\n\tfb();\n}\n", 'b.c' => "void\nfb(void)\n{\n\tfa();\n}\n");
push @misjudged, "two files calling each other pass" unless call_loops(uses_between_files(\%pair)) == 1;
my %ring = ('a.c' => "void\nfa(void)\n{\n\tfb();\n}\n", 'b.c' => "void\nfb(void)\n{\n\tfc();\n}\n",
            'c.c' => "void\nfc(void)\n{\n\tvoid (*back)(void) = fa;\n}\n");
push @misjudged, "three files in a ring pass" unless call_loops(uses_between_files(\%ring)) == 1;
my %line = ('a.c' => "void\nfa(void)\n{\n\tfb();\n}\n", 'b.c' => "void\nfb(void)\n{\n\tfc();\n}\n",
            'c.c' => "static void\nfa(void)\n{\n}\n"
                     . "void\nfc(void)\n{\n\tfa();\n\t/* fb(); */\n\tputs(\"fb()\");\n}\n");
push @misjudged, "three files in a line fail" if call_loops(uses_between_files(\%line));
if (@misjudged) { print "test/shim_functions.pl misjudges its samples: $_\n" for @misjudged; exit 1; }

# --- the shim ---------------------------------------------------------------
my %files;
for my $file (glob 'src/pg/*.c') {
    open my $fh, '<', $file or die "$file: $!";
    local $/;
    $files{$file} = <$fh>;
}
die "no source under src/pg: run from the repository's top directory\n" unless %files;
my $n_functions = 0;
$n_functions += functions_of(code_only($_)) for values %files;
my $uses = uses_between_files(\%files);
die "found no function in src/pg/*.c: the parsing is broken\n" unless $n_functions;
die "found no call between files of src/pg: the parsing is broken\n" unless %$uses;

my @wrong = (long_functions(\%files), map { "call loop: $_" } call_loops($uses));
print "$_\n" for @wrong;
print scalar(@wrong) . " shim functions too long or call loops\n" if @wrong;
exit(@wrong ? 1 : 0);
