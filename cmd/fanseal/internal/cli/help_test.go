//go:build unix

package cli

import (
	"flag"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/clitest"
)

// commandFlags returns the flag sets the commands define, one per command.
func commandFlags() clitest.Sets {
	set := func(name string, define func(*flag.FlagSet)) []*flag.FlagSet {
		fs := NewFlags(name)
		define(fs)
		return []*flag.FlagSet{fs}
	}
	return clitest.Sets{
		"keygen":  set("keygen", func(fs *flag.FlagSet) { keygenFlags(fs) }),
		"encrypt": set("encrypt", func(fs *flag.FlagSet) { encryptFlags(fs) }),
		"decrypt": set("decrypt", func(fs *flag.FlagSet) { decryptFlags(fs) }),
		"inspect": set("inspect", func(fs *flag.FlagSet) { inspectFlags(fs) }),
		"version": set("version", func(*flag.FlagSet) {}),
	}
}

// TestHelpMatchesFlags walks every command's flag sets: each flag is in
// the command's help, a flag with a short and a long name is shown as
// "-x, --long", and the help mentions no flag the command does not
// define. The global help and the README are checked for the flags they
// mention after a command (the tools' tests check theirs).
func TestHelpMatchesFlags(t *testing.T) {
	sets := commandFlags()
	for _, c := range commands {
		help := c.fullHelp()
		clitest.Check(t, "fanseal "+c.name, c.name, help, sets)
		if n := strings.Count(help, "$ fanseal "+c.name); c.name != "version" && (n < 2 || n > 4) {
			t.Errorf("fanseal %s --help has %d examples, want 2 or 3", c.name, n)
		}
	}
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	clitest.CheckText(t, "fanseal --help", globalHelp(), sets)
	clitest.CheckText(t, "README.md", string(readme), sets)
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
		status, out, errOut := execCLI(t, "", args...)
		usage := "Usage:\n" + indent(c.usage)
		if status != 1 || out != "" || !strings.HasPrefix(errOut, "fanseal: error: ") ||
			!strings.Contains(errOut, "flag provided but not defined: --no-such-flag") || !strings.Contains(errOut, usage) {
			t.Errorf("fanseal %s: status %d, stdout %q, stderr:\n%s", strings.Join(args, " "), status, out, errOut)
		}
	}
	execFails(t, "", []string{"help", "frobnicate"}, "unknown")
	// The output rule is one topic, which each command's help points to
	// instead of repeating it.
	if rule, _ := execOK(t, "", "help", "output"); rule != OutputRule+"\n" {
		t.Errorf("fanseal help output:\n%s", rule)
	}
	for _, name := range []string{"encrypt", "decrypt", "keygen"} {
		if text, _ := execOK(t, "", name, "--help"); strings.Contains(text, OutputRule) || !strings.Contains(text, "fanseal help output") {
			t.Errorf("fanseal %s --help repeats the output rule, or does not point to it", name)
		}
	}
}

// TestVersion: fanseal --version and fanseal version print the module
// version, the revision (or why there is none), the Go version and the
// engines this CPU runs.
func TestVersion(t *testing.T) {
	out, _ := execOK(t, "", "--version")
	if again, _ := execOK(t, "", "version"); again != out {
		t.Fatalf("fanseal version %q, fanseal --version %q", again, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "fanseal ") || !strings.HasPrefix(lines[1], "revision ") ||
		!strings.HasPrefix(lines[2], "go1.") || !strings.HasPrefix(lines[3], "engines: ") {
		t.Fatalf("fanseal --version:\n%s", out)
	}
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-01T09:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	text := versionText(bi, engines{"avx2", 4, "avx2", 4, "circl"})
	for _, want := range []string{"fanseal v1.2.3\n", "revision 0123abcd (2026-12-01T09:00:00Z), with uncommitted changes\n",
		"engines: X25519 avx2, 4 a pass; P-256 and secp256k1 avx2, 4 a pass; ML-KEM-768 circl\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("versionText lacks %q:\n%s", want, text)
		}
	}
	bi.Settings = []debug.BuildSetting{{Key: "-tags", Value: "purego"}}
	if text := versionText(bi, engines{}); !strings.Contains(text, "revision unknown") || !strings.Contains(text, "engines: none (built with -tags purego)") {
		t.Errorf("versionText, purego:\n%s", text)
	}
}
