#!/usr/bin/perl
# Nothing outside the mechanism catalogue decides by a mechanism's name: a
# mechanism's rules are its catalogue row's traits and its behaviour
# (docs/design.md, "Adding a mechanism"). This fails on any comparison of a
# string with a mechanism's name (==, !=, strcmp, SQL =) in src/core, src/pg
# or src/sql other than the catalogue itself, src/core/mechanisms/mechanism.cpp,
# and the upgrade scripts, src/sql/upgrades/: they rewrite what past versions
# stored by the names those versions wrote, which is history, not a rule.
# It first checks itself on samples, so that a check that finds nothing fails.
use strict;
use warnings;

my $catalogue = 'src/core/mechanisms/mechanism.cpp';
open(my $fh, '<', $catalogue) or die "$catalogue: $!";
my @names = do { local $/; <$fh> } =~ /\{Mechanism::\w+,\s*"(\w+)"/g;
close $fh;
die "no mechanism names found in $catalogue\n" if @names < 10;
push @names, 'cascade_stream';  # the name a governed stream's published law gives
my $name = join('|', map { quotemeta } sort { length($b) <=> length($a) } @names);
my $q = qr/["']/;
my $compare = qr/(?:[=!]=\s*$q(?:$name)$q|$q(?:$name)$q\s*[=!]=|strcmp\s*\([^;]*$q(?:$name)$q|[^=!<>:]=\s*'(?:$name)'|'(?:$name)'\s*=[^>])/;

sub offences {
  my ($text) = @_;
  my @found;
  my $line = 0;
  for (split /\n/, $text) {
    $line++;
    next if m{^\s*(//|--|\*|/\*)};  # comments
    push @found, $line if /$compare/;
  }
  return @found;
}

# The check on samples: it must find each of these and none of the last.
my @must = ('if (name == "discrete_laplace") x();', 'if ("congenial" != m) x();',
            'else if (strcmp(mechanism, "integer_cascade") != 0)', "IF mechanism = 'congenial' THEN");
my @must_not = ('throw InvalidArgument("mechanism \"congenial\" needs ...");', "  -- IF mechanism = 'cascade'",
                "SELECT jsonb_build_object('mechanism', 'cascade_stream')", 'mechanism => \'integer_laplace\'');
my $bad = 0;
for (@must) { unless (offences($_)) { print "the check misses: $_\n"; $bad++ } }
for (@must_not) { if (offences($_)) { print "the check wrongly flags: $_\n"; $bad++ } }
die "the mechanism-name check is broken\n" if $bad;

my @files = grep { $_ ne $catalogue && !m{^src/sql/upgrades/} } split /\n/,
  `git ls-files --cached --others --exclude-standard src/core src/pg src/sql`;
my $count = 0;
for my $file (@files) {
  next unless $file =~ /\.(cpp|hpp|c|h|sql)$/;
  open(my $in, '<', $file) or die "$file: $!";
  my $text = do { local $/; <$in> };
  close $in;
  for my $line (offences($text)) {
    print "$file:$line decides by a mechanism's name; use its catalogue row's traits or behaviour\n";
    $count++;
  }
}
exit($count ? 1 : 0);
