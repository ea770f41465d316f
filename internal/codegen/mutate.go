package codegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A Mutation is a deliberate error in a generator: the text Old, which
// must occur exactly once in the generator (gen.go), replaced by New.
type Mutation struct {
	Name, Old, New string
}

var failRe = regexp.MustCompile(`(?m)^\s*--- FAIL: (\w+)`)

// Mutate checks that the tests of the package in the current directory
// catch each mutation of its gen.go. For each, it writes the mutated
// generator and the file it generates (gen.go's -out flag; output names
// the generated file) to a temporary directory, and runs the package's
// short tests with both in place through the go command's -overlay flag,
// so the package keeps its imports and its module. A mutation is caught
// when gen.go, built, refuses to generate (a check of its own fails) or a
// test fails; the test logs which. A mutant whose gen.go does not build, or
// whose tests fail without a failing test (the package does not build), is
// an error, and so are tests of the unmutated package that do not pass.
// Variables of the environment that start with skipEnv are removed from
// the tests' (so that the mutation test does not run itself).
func Mutate(t *testing.T, output, skipEnv string, mutations []Mutation) {
	MutateGenerator(t, "gen.go", output, skipEnv, mutations)
}

// MutateGenerator is Mutate for a package with more than one generator:
// generator names the one to mutate (a file of the package's directory,
// with gen.go's -out flag), output the file it writes.
func MutateGenerator(t *testing.T, generator, output, skipEnv string, mutations []Mutation) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	gen, err := os.ReadFile(generator)
	if err != nil {
		t.Fatal(err)
	}
	// The unmutated package must pass first: a test that fails anyway
	// would count every mutant as caught.
	if _, err := tryMutant(gotool, generator, string(gen), output, skipEnv, Mutation{Name: "none"}, t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "not caught") {
		t.Fatalf("the tests of the unmutated package do not pass: %v", err)
	}
	for _, m := range mutations {
		t.Run(m.Name, func(t *testing.T) {
			v, err := tryMutant(gotool, generator, string(gen), output, skipEnv, m, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Log(v)
		})
	}
}

// tryMutant runs one mutation (see Mutate) of the generator file
// generator, whose text is gen, with its files in dir and returns how it
// was caught, or an error: the text to mutate is not there exactly once,
// the mutated generator does not build, the tests pass, or go test failed
// without a failing test (a mutant that does not build is not a caught
// one). The mutation named "none" (Old empty) is the unmutated package.
func tryMutant(gotool, generator, gen, output, skipEnv string, m Mutation, dir string) (string, error) {
	if n := strings.Count(gen, m.Old); n != 1 && m.Name != "none" {
		return "", fmt.Errorf("the text to mutate occurs %d times in %s", n, generator)
	}
	genPath, _ := filepath.Abs(generator)
	outPath, _ := filepath.Abs(output)
	var env []string
	for _, kv := range hostEnv() {
		if !strings.HasPrefix(kv, skipEnv) {
			env = append(env, kv)
		}
	}
	mutated := filepath.Join(dir, filepath.Base(generator))
	generated := filepath.Join(dir, filepath.Base(output))
	if err := os.WriteFile(mutated, []byte(strings.Replace(gen, m.Old, m.New, 1)), 0o644); err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := writeOverlay(overlay, map[string]string{genPath: mutated}); err != nil {
		return "", err
	}
	// The mutated generator must build: a mutant that does not compile is
	// a broken mutation, not a caught one.
	genBin := filepath.Join(dir, "gen")
	cmd := exec.Command(gotool, "build", "-overlay", overlay, "-o", genBin, generator)
	cmd.Env = hostEnv()
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("the mutated %s does not build:\n%s", generator, msg)
	}
	cmd = exec.Command(genBin, "-out", generated)
	if msg, err := cmd.CombinedOutput(); err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(msg)), "\n")
		return "refused by " + generator + ": " + first, nil
	}
	if err := writeOverlay(overlay, map[string]string{genPath: mutated, outPath: generated}); err != nil {
		return "", err
	}
	cmd = exec.Command(gotool, "test", "-overlay", overlay, "-short", "-count=1", ".")
	cmd.Env = env
	msg, err := cmd.CombinedOutput()
	if err == nil {
		return "", errors.New("not caught: the tests pass")
	}
	var caught []string
	for _, s := range failRe.FindAllStringSubmatch(string(msg), -1) {
		if !slices.Contains(caught, s[1]) {
			caught = append(caught, s[1])
		}
	}
	if len(caught) == 0 {
		return "", fmt.Errorf("go test failed without a failing test:\n%s", msg)
	}
	return "caught by " + strings.Join(caught, ", "), nil
}

func writeOverlay(path string, replace map[string]string) error {
	b, err := json.Marshal(struct{ Replace map[string]string }{replace})
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// CheckGenerated checks that the file output of the package in the
// current directory is what its gen.go writes now (gen.go's -out flag), and
// returns the file. It skips the test without a go command.
func CheckGenerated(t *testing.T, output string) []byte {
	t.Helper()
	return CheckGeneratedBy(t, "gen.go", output)
}

// CheckGeneratedBy is CheckGenerated for the generator file generator (of
// a package with more than one).
func CheckGeneratedBy(t *testing.T, generator, output string) []byte {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := filepath.Join(t.TempDir(), filepath.Base(output))
	run := exec.Command(gotool, "run", generator, "-out", out)
	run.Env = hostEnv()
	if msg, err := run.CombinedOutput(); err != nil {
		t.Fatalf("go run %s: %v\n%s", generator, err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("%s differs from the output of %s: run go generate", output, generator)
	}
	return have
}

// hostEnv is the environment for a generator, which runs on the machine
// that builds: a GOOS or GOARCH set for the tests (a test binary run under
// an emulator) does not apply to it.
func hostEnv() []string {
	return append(os.Environ(), "GOOS=", "GOARCH=")
}
