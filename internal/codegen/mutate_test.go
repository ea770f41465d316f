package codegen

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMutateFixture runs tryMutant on testdata/fixture, whose gen.go
// writes value.go (Value = 42) and whose test checks it: a mutant that
// changes the value is caught by TestValue, one that changes nothing is
// not caught, one that does not compile is an error and not a catch, one
// that stops gen.go is caught by gen.go, and a text that is not in gen.go
// is an error, and so is a mutant whose gen.go does not compile.
func TestMutateFixture(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	t.Chdir("testdata/fixture")
	gen := readFile(t, "gen.go")
	for _, c := range []struct {
		m       Mutation
		caught  string // what tryMutant says, or
		failure string // the start of its error
	}{
		{Mutation{"value", "6*7", "6*8"}, "caught by TestValue", ""},
		{Mutation{"same value", "6*7", "7*6"}, "", "not caught"},
		{Mutation{"does not build", `const Value = %d`, `const Value = %d + undefined`}, "", "go test failed without a failing test"},
		{Mutation{"generator stops", `	flag.Parse()`, `	flag.Parse()
	log.Fatal("stop")`}, "refused by gen.go: ", ""},
		{Mutation{"generator does not build", "6*7", "6*undefinedName"}, "", "the mutated gen.go does not build"},
		{Mutation{"absent", "no such text", "x"}, "", "the text to mutate occurs 0 times"},
	} {
		got, err := tryMutant(gotool, "gen.go", gen, "value.go", "CODEGEN_", c.m, t.TempDir())
		switch {
		case c.failure != "" && (err == nil || !strings.HasPrefix(err.Error(), c.failure)):
			t.Errorf("%s: got %q, %v; want the error %q", c.m.Name, got, err, c.failure)
		case c.failure == "" && (err != nil || !strings.HasPrefix(got, c.caught)):
			t.Errorf("%s: got %q, %v; want %q", c.m.Name, got, err, c.caught)
		}
	}
}

// TestCheckGeneratedFixture checks the fixture's value.go against its
// gen.go (they agree).
func TestCheckGeneratedFixture(t *testing.T) {
	t.Chdir("testdata/fixture")
	if got := CheckGenerated(t, "value.go"); !strings.Contains(string(got), "const Value = 42") {
		t.Errorf("CheckGenerated returned %q", got)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMutate runs Mutate itself on the fixture, with a mutant the
// fixture's test catches.
func TestMutate(t *testing.T) {
	t.Chdir("testdata/fixture")
	Mutate(t, "value.go", "CODEGEN_", []Mutation{{"value", "6*7", "6*8"}})
}
