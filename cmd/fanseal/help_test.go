//go:build unix

package main

import (
	"flag"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
)

// commandFlags returns the flag sets the commands define: one per
// command, and for sim one per workload, under "sim" and "sim WORKLOAD".
func commandFlags() map[string][]*flag.FlagSet {
	set := func(name string, define func(*flag.FlagSet)) []*flag.FlagSet {
		fs := newFlags(name)
		define(fs)
		return []*flag.FlagSet{fs}
	}
	m := map[string][]*flag.FlagSet{
		"keygen":  set("keygen", func(fs *flag.FlagSet) { keygenFlags(fs) }),
		"encrypt": set("encrypt", func(fs *flag.FlagSet) { encryptFlags(fs) }),
		"decrypt": set("decrypt", func(fs *flag.FlagSet) { decryptFlags(fs) }),
		"inspect": set("inspect", func(fs *flag.FlagSet) { inspectFlags(fs) }),
		"bench":   set("bench", func(fs *flag.FlagSet) { benchFlags(fs) }),
		"version": set("version", func(*flag.FlagSet) {}),
	}
	for _, w := range simWorkloads {
		fs := set("sim "+w, func(fs *flag.FlagSet) { simFlags(w, fs) })
		m["sim"] = append(m["sim"], fs...)
		m["sim "+w] = fs
	}
	return m
}

// defined reports whether one of sets defines the flag name. -h and
// --help are defined by the flag package itself.
func defined(sets []*flag.FlagSet, name string) bool {
	if name == "h" || name == "help" {
		return true
	}
	if name == "version" && len(sets) == 1 && sets[0].Name() == "version" {
		return true // fanseal --version, which run reads as fanseal version
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

// commandMention matches "fanseal COMMAND", and "fanseal sim WORKLOAD".
var commandMention = regexp.MustCompile(`fanseal (keygen|encrypt|decrypt|inspect|bench|version|sim(?: (?:synchronizer|ledger|dkg))?)\b`)

// mentions returns the flags that text mentions, each with the command it
// is mentioned for: the command named before it on its line ("fanseal
// encrypt -r"), or, with none, def ("" leaves such flags out).
func mentions(text, def string) (out [][2]string) {
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

// spelled returns how a help text writes the flag name: -x or --name.
func spelled(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// mentioned reports whether text has the flag token tok, whole.
func mentioned(text, tok string) bool {
	return regexp.MustCompile(`(?:^|[\s\[(|,"'])` + regexp.QuoteMeta(tok) + `(?:$|[^a-zA-Z0-9-])`).MatchString(text)
}

// TestHelpMatchesFlags walks every command's flag sets: each flag is in
// the command's help, a flag with a short and a long name is shown as
// "-x, --long", and the help mentions no flag the command does not
// define. The global help and the README are checked for the flags they
// mention after a command.
func TestHelpMatchesFlags(t *testing.T) {
	sets := commandFlags()
	for _, c := range commands {
		help := c.fullHelp()
		for _, m := range mentions(help, c.name) {
			if !defined(sets[m[0]], m[1]) {
				t.Errorf("fanseal %s --help mentions %s, which fanseal %s does not define", c.name, spelled(m[1]), m[0])
			}
		}
		for _, fs := range sets[c.name] {
			aliases := map[uintptr][]string{}
			fs.VisitAll(func(f *flag.Flag) {
				if !mentioned(help, spelled(f.Name)) {
					t.Errorf("fanseal %s --help does not mention %s (%s)", c.name, spelled(f.Name), fs.Name())
				}
				p := reflect.ValueOf(f.Value).Pointer()
				aliases[p] = append(aliases[p], f.Name)
			})
			for _, names := range aliases {
				slices.SortFunc(names, func(a, b string) int { return len(a) - len(b) })
				if len(names) == 2 && len(names[0]) == 1 {
					if pair := "-" + names[0] + ", --" + names[1]; !strings.Contains(help, pair) {
						t.Errorf("fanseal %s --help does not show %q", c.name, pair)
					}
				}
			}
		}
		if !strings.Contains(help, "-h, --help") {
			t.Errorf("fanseal %s --help does not show -h, --help", c.name)
		}
		if n := strings.Count(help, "$ fanseal "+c.name); c.name != "version" && (n < 2 || n > 4) {
			t.Errorf("fanseal %s --help has %d examples, want 2 or 3", c.name, n)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"fanseal --help": globalHelp(), "README.md": string(readme)} {
		for _, m := range mentions(text, "") {
			if !defined(sets[m[0]], m[1]) {
				t.Errorf("%s: fanseal %s %s: no such flag", what, m[0], spelled(m[1]))
			}
		}
	}
}

// TestHelpListsValues: where a flag takes one of a set of names, the help
// lists all of them, and figures it states are the code's.
func TestHelpListsValues(t *testing.T) {
	keygen := commandNamed("keygen").fullHelp()
	for _, s := range fanseal.Suites {
		if !strings.Contains(keygen, s.String()) {
			t.Errorf("fanseal keygen --help does not list suite %s", s)
		}
	}
	sim := commandNamed("sim").fullHelp()
	strategies := regexp.MustCompile(`--strategy ((?:[a-z-]+\|\s*)+[a-z-]+)`).FindString(sim)
	for _, s := range fanseal.Strategies {
		if !strings.Contains(strategies, s.String()) {
			t.Errorf("fanseal sim --help lists --strategy %s without %s", strings.TrimSpace(strategies), s)
		}
	}
	bench := commandNamed("bench").fullHelp()
	def := commandFlags()["bench"][0].Lookup("recipients").DefValue
	if !strings.Contains(bench, "(default "+def+";") || strings.Contains(bench, "2 to 20") {
		t.Errorf("fanseal bench --help does not say --recipients defaults to %s", def)
	}
}

// TestHelpPerCommand: fanseal COMMAND --help, -h and fanseal help COMMAND
// print that command's own help on standard output with status 0, and an
// unknown flag prints the error and that command's usage on standard error.
func TestHelpPerCommand(t *testing.T) {
	seen := map[string]string{}
	for _, c := range commands {
		want, _ := execOK(t, "", c.name, "--help")
		if !strings.HasPrefix(want, "Usage:\n    fanseal "+c.name) || !strings.Contains(want, "Options:") {
			t.Fatalf("fanseal %s --help:\n%s", c.name, want)
		}
		for other, text := range seen {
			if text == want {
				t.Fatalf("fanseal %s --help prints the same as fanseal %s --help", c.name, other)
			}
		}
		seen[c.name] = want
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}, {c.name, "-help"}} {
			if got, _ := execOK(t, "", args...); got != want {
				t.Errorf("fanseal %s differs from fanseal %s --help", strings.Join(args, " "), c.name)
			}
		}
		args := []string{c.name, "--no-such-flag"}
		if c.name == "sim" {
			args = []string{"sim", "dkg", "--no-such-flag"}
		}
		status, out, errOut := execCLI(t, "", args...)
		usage := "Usage:\n" + indent(c.usage)
		if status != 1 || out != "" || !strings.HasPrefix(errOut, "fanseal: error: ") ||
			!strings.Contains(errOut, "flag provided but not defined: --no-such-flag") || !strings.Contains(errOut, usage) {
			t.Errorf("fanseal %s: status %d, stdout %q, stderr:\n%s", strings.Join(args, " "), status, out, errOut)
		}
	}
	if got, _ := execOK(t, "", "sim", "dkg", "--help"); got != seen["sim"] {
		t.Error("fanseal sim dkg --help differs from fanseal sim --help")
	}
	execFails(t, "", []string{"help", "frobnicate"}, "unknown")
	execFails(t, "", []string{"-d", "x.fsl"}, "fanseal decrypt")
}

// TestVersion: fanseal --version and fanseal version print the module
// version, the revision (or why there is none), the Go version and
// whether the IFMA path is active.
func TestVersion(t *testing.T) {
	out, _ := execOK(t, "", "--version")
	if again, _ := execOK(t, "", "version"); again != out {
		t.Fatalf("fanseal version %q, fanseal --version %q", again, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "fanseal ") || !strings.HasPrefix(lines[1], "revision ") ||
		!strings.HasPrefix(lines[2], "go1.") || !strings.HasPrefix(lines[3], "IFMA path: ") {
		t.Fatalf("fanseal --version:\n%s", out)
	}
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-01T09:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	text := versionText(bi, true)
	for _, want := range []string{"fanseal v1.2.3\n", "revision 0123abcd (2026-12-01T09:00:00Z), with uncommitted changes\n", ": active"} {
		if !strings.Contains(text, want) {
			t.Errorf("versionText lacks %q:\n%s", want, text)
		}
	}
	bi.Settings = []debug.BuildSetting{{Key: "-tags", Value: "purego"}}
	if text := versionText(bi, false); !strings.Contains(text, "revision unknown") || !strings.Contains(text, "inactive (built with -tags purego)") {
		t.Errorf("versionText, purego:\n%s", text)
	}
}
