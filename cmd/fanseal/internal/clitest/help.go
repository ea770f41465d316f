// Package clitest is what the tests of fanseal's programs (the fanseal
// command and the measuring tools) share: the check of a command's help
// against the flags it defines (every flag is in the help, and the help
// mentions no flag that is not defined), and running a program in-process.
package clitest

import (
	"flag"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Sets maps a command ("encrypt", "bench", "sim dkg") to the flag sets it
// defines; a command of several forms (sim) has several.
type Sets map[string][]*flag.FlagSet

// Defined reports whether one of sets defines the flag name. -h and
// --help are defined by the flag package itself.
func Defined(sets []*flag.FlagSet, name string) bool {
	if name == "h" || name == "help" {
		return true
	}
	if name == "version" && len(sets) == 1 && sets[0].Name() == "version" {
		return true // fanseal --version, which fanseal reads as fanseal version
	}
	for _, fs := range sets {
		if fs.Lookup(name) != nil {
			return true
		}
	}
	return false
}

// flagToken matches a flag mentioned in text: -x or --long, after a space,
// a bracket, a bar, a comma or a quote.
var flagToken = regexp.MustCompile(`(?:^|[\s\[(|,"'])(--?[a-zA-Z][a-zA-Z0-9-]*)`)

// commandMention matches "fanseal COMMAND", "go run ./cmd/fanseal/bench"
// and "go run ./cmd/fanseal/sim WORKLOAD".
var commandMention = regexp.MustCompile(`(?:fanseal |cmd/fanseal/)(keygen|encrypt|decrypt|inspect|bench|version|sim(?: (?:synchronizer|ledger|dkg))?)\b`)

// Mentions returns the flags that text mentions, each with the command it
// is mentioned for: the command named before it on its line ("fanseal
// encrypt -r"), or, with none, def ("" leaves such flags out).
func Mentions(text, def string) (out [][2]string) {
	for _, line := range strings.Split(text, "\n") {
		cmds := commandMention.FindAllStringSubmatchIndex(line, -1)
		for _, m := range flagToken.FindAllStringSubmatchIndex(line, -1) {
			at, cmd := m[2], def
			for _, c := range cmds {
				if c[0] < at {
					cmd = line[c[2]:c[3]]
				}
			}
			if cmd != "" {
				out = append(out, [2]string{cmd, strings.TrimLeft(line[m[2]:m[3]], "-")})
			}
		}
	}
	return out
}

// Spelled returns how a help text writes the flag name: -x or --name.
func Spelled(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// mentioned reports whether text has the flag token tok, whole.
func mentioned(text, tok string) bool {
	return regexp.MustCompile(`(?:^|[\s\[(|,"'])` + regexp.QuoteMeta(tok) + `(?:$|[^a-zA-Z0-9-])`).MatchString(text)
}

// Check checks help, the --help of the command name (as program names
// it: "fanseal encrypt", "go run ./cmd/fanseal/bench"), against sets: each
// flag of sets[name] is in the help; a flag with a short and a long name
// is shown as "-x, --long"; the help shows -h, --help; and every flag it
// mentions is one that the command it is mentioned for defines.
func Check(t testing.TB, program, name, help string, sets Sets) {
	t.Helper()
	for _, m := range Mentions(help, name) {
		if !Defined(sets[m[0]], m[1]) {
			t.Errorf("%s --help mentions %s, which %s does not define", program, Spelled(m[1]), m[0])
		}
	}
	for _, fs := range sets[name] {
		aliases := map[uintptr][]string{}
		fs.VisitAll(func(f *flag.Flag) {
			if !mentioned(help, Spelled(f.Name)) {
				t.Errorf("%s --help does not mention %s (%s)", program, Spelled(f.Name), fs.Name())
			}
			p := reflect.ValueOf(f.Value).Pointer()
			aliases[p] = append(aliases[p], f.Name)
		})
		for _, names := range aliases {
			slices.SortFunc(names, func(a, b string) int { return len(a) - len(b) })
			if len(names) == 2 && len(names[0]) == 1 {
				if pair := "-" + names[0] + ", --" + names[1]; !strings.Contains(help, pair) {
					t.Errorf("%s --help does not show %q", program, pair)
				}
			}
		}
	}
	if !strings.Contains(help, "-h, --help") {
		t.Errorf("%s --help does not show -h, --help", program)
	}
}

// CheckText checks the flags that text (what, such as "README.md")
// mentions after one of the commands of sets: each is defined there.
// Mentions after other commands are left to those commands' tests.
func CheckText(t testing.TB, what, text string, sets Sets) {
	t.Helper()
	for _, m := range Mentions(text, "") {
		if _, ours := sets[m[0]]; ours && !Defined(sets[m[0]], m[1]) {
			t.Errorf("%s: %s %s: no such flag", what, m[0], Spelled(m[1]))
		}
	}
}
