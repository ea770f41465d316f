package fanseal

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// decredVariableTime lists, per package of github.com/decred/dcrd/dcrec/secp256k1/v4,
// the functions that multiply by a scalar in variable time (their running
// time depends on the scalar), or sign with a secret nonce that way.
var decredVariableTime = map[string][]string{
	"github.com/decred/dcrd/dcrec/secp256k1/v4":         {"GenerateSharedSecret", "ScalarMultNonConst", "ScalarBaseMultNonConst"},
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa":   {"Sign", "SignCompact"},
	"github.com/decred/dcrd/dcrec/secp256k1/v4/schnorr": {"Sign"},
}

// TestSecretScalarsConstantTime checks that no code of the library and
// its foundations (tests and the applications aside) hands a scalar to
// decred's variable-time multiplications: not its functions above, and
// not a PrivateKey's PubKey method (ScalarBaseMultNonConst), which the
// check finds as any call of a method named PubKey in a file that imports
// decred. decred parses and validates public keys; every multiplication
// by a private scalar is internal/ecdhx8's (its IFMA code, or
// internal/k256, or under purego secp256k1-voi), constant time on every
// CPU (docs/SECURITY.md).
func TestSecretScalarsConstantTime(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || layerOf(filepath.ToSlash(p)) == applications) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		forbidden := map[string][]string{} // local package name -> functions
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			fns, ok := decredVariableTime[ip]
			if !ok && !strings.HasPrefix(ip, "github.com/decred/dcrd/dcrec/secp256k1/") {
				continue
			}
			name := path.Base(ip)
			if ip == "github.com/decred/dcrd/dcrec/secp256k1/v4" {
				name = "secp256k1"
			}
			if imp.Name != nil {
				name = imp.Name.Name
			}
			forbidden[name] = append(forbidden[name], fns...)
		}
		if len(forbidden) == 0 {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if sel.Sel.Name == "PubKey" {
				t.Errorf("%s: a call of PubKey (decred's PrivateKey.PubKey is ScalarBaseMultNonConst): use ecdhx8.PublicKeyOne", fset.Position(call.Pos()))
			}
			if x, ok := sel.X.(*ast.Ident); ok {
				for _, fn := range forbidden[x.Name] {
					if sel.Sel.Name == fn {
						t.Errorf("%s: %s.%s multiplies by a scalar in variable time: use internal/ecdhx8", fset.Position(call.Pos()), x.Name, fn)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
