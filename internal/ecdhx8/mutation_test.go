//go:build !purego

package ecdhx8

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A mutation is a deliberate error in gen.go: the text to replace, exactly
// once, and its replacement.
type mutation struct {
	name, old, new string
}

// mutations are errors the tests must catch. All but one change the code
// that gen.go writes without changing the bounds it tracks, so that its
// own checks pass and only the tests can notice; "chain exponent" is
// refused by gen.go's check of the addition chain. A run
// (ECDHX8_MUTATIONS=1) logs, for each, the tests that failed; the last
// one gave (every mutation is also caught by TestECDHRandom,
// TestECDHOneScalar, TestECDHEdgeCases, TestECDHInvalidPoints,
// TestEveryLane and TestRefScalarMult; the rest of each list):
//
//	carry dropped:       FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, Wycheproof*, fuzz seeds
//	fold constant:       FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, WycheproofSecp256k1
//	column off by one:   FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, Wycheproof*
//	Montgomery carry:    FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, WycheproofP256
//	fold shift:          FieldOps, PointFormulas, Affine, PublicKeys*, ParsePoints, Wycheproof*
//	bias limb written:   FieldOps, PointFormulas, PublicKeys*, ParsePoints, Wycheproof*
//	table-scan bound:    PublicKeys, PublicKeysComb, Wycheproof*
//	mask skipped:        PublicKeys, PublicKeysComb, Wycheproof*, FuzzECDH seeds
//	sign mask address:   Wycheproof*, FuzzECDH seeds
//	window doublings:    Wycheproof*, FuzzECDH seeds
//	chain loop count:    Affine, PublicKeys*, ParsePoints, Wycheproof*
//	chain exponent:      gen.go ("inversion chain computes z^...")
//	b3 coefficient:      PointFormulas, PublicKeys, WycheproofSecp256k1
//	b coefficient:       FieldOps (mulSub), PointFormulas, PublicKeys, ParsePoints, WycheproofP256
//	swapped subtraction: PointFormulas, PublicKeys*, WycheproofP256
var mutations = []mutation{
	{"carry dropped",
		`		ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])
		l[j+1] = badd(l[j+1], brsh(l[j], 52))`,
		`		if j != 2 {
			ins("VPADDQ %s, %s, %s", t0, v[j+1], v[j+1])
		}
		l[j+1] = badd(l[j+1], brsh(l[j], 52))`},
	{"fold constant",
		`	f.c260 = f.mod(pow2(260))`,
		`	f.c260 = badd(f.mod(pow2(260)), big.NewInt(16))`},
	{"column off by one",
		`}{{i + j, "VPMADD52LUQ", lo}, {i + j + 1, "VPMADD52HUQ", hi}} {`,
		`}{{i + j, "VPMADD52LUQ", lo}, {i + j + 1 - (i*j)/8, "VPMADD52HUQ", hi}} {`},
	{"Montgomery carry",
		`		ins("VPSRLQ $52, %s, %s", acc[i], t0)
		ins("VPADDQ %s, %s, %s", t0, acc[i+1], acc[i+1])
		c[i+1] = badd(c[i+1], brsh(c[i], 52))`,
		`		c[i+1] = badd(c[i+1], brsh(c[i], 52))`},
	{"fold shift",
		`			ins("VPSRLQ $48, %s, %s", v[4], t0)`,
		`			ins("VPSRLQ $49, %s, %s", v[4], t0)`},
	{"bias limb written wrong",
		`			ins("VPADDQ.BCST %s, %s, %s", g.f.mem(d[j].Uint64()), r[j], r[j])`,
		`			ins("VPADDQ.BCST %s, %s, %s", g.f.mem(d[j].Uint64()+uint64(j/4)), r[j], r[j])`},
	{"table-scan bound",
		`	for j := 0; j < n; j++ {
		note("j = %d: mask`,
		`	for j := 0; j < n-1; j++ {
		note("j = %d: mask`},
	{"mask skipped",
		`		ins("VPSRAQ $63, Z17, Z17")`,
		``},
	{"sign mask address",
		`	ins("VMOVDQU64 64(SI)(AX*1), Z17")`,
		`	ins("VMOVDQU64 (SI)(AX*1), Z17")`},
	{"window doublings",
		`	ins("MOVQ $5, DX")`,
		`	ins("MOVQ $4, DX")`},
	{"chain loop count",
		`		ins("MOVQ $%d, CX", n)
		l := g.label("sq")`,
		`		ins("MOVQ $%d, CX", n+n/32)
		l := g.label("sq")`},
	{"chain exponent",
		`		c.sqn("t", "t", 30)`,
		`		c.sqn("t", "t", 29)`},
	{"b3 coefficient",
		`		g.mulSmall(Y3, Y3, 21, "step 24")`,
		`		g.mulSmall(Y3, Y3, 20, "step 24")`},
	{"b coefficient",
		`	return slot{k: f.toM(f.b), name: "b"}`,
		`	return slot{k: f.toM(badd(f.b, big.NewInt(1))), name: "b"}`},
	{"swapped subtraction",
		`		g.lin(Z3, "step 23", 1, []lterm{lt(1, t1), lt(-1, X3)})`,
		`		g.lin(Z3, "step 23", 1, []lterm{lt(-1, t1), lt(1, X3)})`},
}

// TestMutations applies each mutation to a copy of the package (in a
// temporary module with this module's go.mod and go.sum), regenerates the
// assembly there and runs the short tests: each mutation must be caught,
// by a failing test or by gen.go refusing to generate. It takes several
// minutes: set ECDHX8_MUTATIONS=1.
func TestMutations(t *testing.T) {
	if os.Getenv("ECDHX8_MUTATIONS") == "" {
		t.Skip("set ECDHX8_MUTATIONS=1 to run the mutation test of gen.go")
	}
	requireIFMA(t)
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	modRoot, err := exec.Command(gotool, "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(modRoot)))
	gen, err := os.ReadFile("gen.go")
	if err != nil {
		t.Fatal(err)
	}
	failRe := regexp.MustCompile(`(?m)^\s*--- FAIL: (\w+)`)
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			if n := strings.Count(string(gen), m.old); n != 1 {
				t.Fatalf("the text to mutate occurs %d times in gen.go", n)
			}
			dir := t.TempDir()
			copyPackage(t, root, dir)
			mutated := strings.Replace(string(gen), m.old, m.new, 1)
			if err := os.WriteFile(filepath.Join(dir, "gen.go"), []byte(mutated), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(gotool, "run", "gen.go")
			cmd.Dir = dir
			if msg, err := cmd.CombinedOutput(); err != nil {
				first, _, _ := strings.Cut(string(msg), "\n")
				t.Logf("caught by gen.go: %s", first)
				return
			}
			cmd = exec.Command(gotool, "test", "-short", "-count=1", ".")
			cmd.Dir = dir
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "ECDHX8_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			msg, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("not caught: the tests pass")
			}
			var caught []string
			for _, s := range failRe.FindAllStringSubmatch(string(msg), -1) {
				if !slices.Contains(caught, s[1]) {
					caught = append(caught, s[1])
				}
			}
			if len(caught) == 0 {
				t.Fatalf("go test failed without a failing test:\n%s", msg)
			}
			t.Logf("caught by %s", strings.Join(caught, ", "))
		})
	}
}

// copyPackage copies this package's files (not its tests' caches) and the
// module's go.mod and go.sum, renamed, to dir.
func copyPackage(t *testing.T, root, dir string) {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		copyFile(t, e.Name(), filepath.Join(dir, e.Name()))
	}
	if err := os.MkdirAll(filepath.Join(dir, "testdata", "wycheproof"), 0o755); err != nil {
		t.Fatal(err)
	}
	wy, err := os.ReadDir("testdata/wycheproof")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range wy {
		copyFile(t, filepath.Join("testdata", "wycheproof", e.Name()), filepath.Join(dir, "testdata", "wycheproof", e.Name()))
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module ecdhx8mutant"))
	mod = regexp.MustCompile(`(?m)^tool .*$`).ReplaceAll(mod, nil)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(dir, "go.sum"))
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
