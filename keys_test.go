package fanseal

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestKeyText(t *testing.T) {
	for _, s := range Suites {
		ids, _ := identities(t, s, 1)
		id := ids[0]
		text := id.String()
		if !strings.HasPrefix(text, "FANSEAL_SECRET_"+strings.ToUpper(s.String())+"_") {
			t.Errorf("%s identity text %q", s, text[:30])
		}
		back, err := ParseIdentity(text)
		if err != nil {
			t.Fatalf("%s: ParseIdentity: %v", s, err)
		}
		if back.Recipient().String() != id.Recipient().String() || back.Suite() != s {
			t.Fatalf("%s: identity does not round-trip", s)
		}
		rtext := id.Recipient().String()
		if !strings.HasPrefix(rtext, "fanseal_"+s.String()+"_") || rtext != strings.ToLower(rtext) {
			t.Errorf("%s recipient text %q", s, rtext[:30])
		}
		r, err := ParseRecipient(rtext)
		if err != nil {
			t.Fatalf("%s: ParseRecipient: %v", s, err)
		}
		if !bytes.Equal(r.Bytes(), id.Recipient().Bytes()) || r.KeyID() != id.Recipient().KeyID() {
			t.Fatalf("%s: recipient does not round-trip", s)
		}
	}
}

func TestKeyTextErrors(t *testing.T) {
	ids, _ := identities(t, P256, 1)
	r := ids[0].Recipient().String()
	i := ids[0].String()
	_, xr := identities(t, X25519, 1)
	for name, bad := range map[string]string{
		"empty":            "",
		"prefix":           "age1" + r[4:],
		"upper-recipient":  strings.ToUpper(r),
		"lower-identity":   strings.ToLower(i),
		"mixed-case":       upperOneLetter(r, 20),
		"unknown-suite":    strings.Replace(r, "_p256_", "_p384_", 1),
		"relabelled-suite": strings.Replace(xr[0].String(), "_x25519_", "_p256_", 1),
		"no-suite":         "fanseal_",
		"truncated":        r[:len(r)-1],
		"typo":             r[:30] + flip(r[30]) + r[31:],
		"not-base32":       r[:30] + "1" + r[31:],
		"identity-typo":    i[:40] + flipUpper(i[40]) + i[41:],
	} {
		if _, err := ParseRecipient(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: ParseRecipient error = %v", name, err)
		}
		if _, err := ParseIdentity(bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%s: ParseIdentity error = %v", name, err)
		}
	}
	if _, err := ParseIdentity(r); !errors.Is(err, ErrInvalidKey) {
		t.Error("a recipient parsed as an identity")
	}
	if _, err := ParseRecipient(i); !errors.Is(err, ErrInvalidKey) {
		t.Error("an identity parsed as a recipient")
	}
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

func flipUpper(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestInvalidKeyBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Suite
		pub  []byte
		priv []byte
	}{
		{"p256/off-curve", P256, append([]byte{4}, bytes.Repeat([]byte{9}, 64)...), nil},
		{"p256/infinity", P256, []byte{0}, nil},
		{"p256/zero-scalar", P256, nil, make([]byte, 32)},
		{"x25519/short", X25519, make([]byte, 31), make([]byte, 31)},
		{"secp256k1/off-curve", Secp256k1, append([]byte{4}, bytes.Repeat([]byte{9}, 64)...), nil},
		{"secp256k1/zero-scalar", Secp256k1, nil, make([]byte, 32)},
		{"mlkem/short", MLKEM768X25519, make([]byte, 100), make([]byte, 31)},
	} {
		if tc.pub != nil {
			if _, err := NewRecipient(tc.s, tc.pub); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("%s: NewRecipient error = %v", tc.name, err)
			}
		}
		if tc.priv != nil {
			if _, err := NewIdentity(tc.s, tc.priv); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("%s: NewIdentity error = %v", tc.name, err)
			}
		}
	}
	if _, err := NewRecipient(Suite(0x0011), make([]byte, 97)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("P-384 recipient: %v", err)
	}
	if _, err := GenerateIdentity(Suite(0x0011)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("P-384 identity: %v", err)
	}
}

func TestKeyFiles(t *testing.T) {
	ids, rs := identities(t, X25519, 2)
	file := "# created: today\n# public key: " + rs[0].String() + "\n" + ids[0].String() + "\n\n   \n" + ids[1].String() + "\r\n"
	got, err := ParseIdentities(strings.NewReader(file))
	if err != nil || len(got) != 2 || got[1].Recipient().String() != rs[1].String() {
		t.Fatalf("ParseIdentities = %v, %v", got, err)
	}
	rfile := "# team\n" + rs[0].String() + "\n" + rs[1].String()
	grs, err := ParseRecipients(strings.NewReader(rfile))
	if err != nil || len(grs) != 2 {
		t.Fatalf("ParseRecipients = %v, %v", grs, err)
	}
	_, err = ParseIdentities(strings.NewReader("# c\n" + ids[0].String() + "\nFANSEAL_SECRET_X25519_AAAA\n"))
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("bad line error = %v, want ErrInvalidKey naming line 3", err)
	}
	if _, err := ParseRecipients(strings.NewReader("# only comments\n")); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("empty file error = %v", err)
	}
	if _, err := ParseRecipients(strings.NewReader(strings.Repeat("x", 70<<10))); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("long line error = %v", err)
	}
}

func TestSuiteNames(t *testing.T) {
	for _, s := range Suites {
		got, err := ParseSuite(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSuite(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSuite("p384"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ParseSuite(p384) error = %v", err)
	}
	for _, st := range Strategies {
		if got, err := ParseStrategy(st.String()); err != nil || got != st {
			t.Errorf("ParseStrategy(%q) = %v, %v", st, got, err)
		}
	}
	if _, err := ParseStrategy("magic"); err == nil {
		t.Error("ParseStrategy accepted an unknown name")
	}
}

// upperOneLetter returns s with its first lower-case letter at or after
// index from in upper case (base32 text also holds digits, which have no
// case).
func upperOneLetter(s string, from int) string {
	i := from + strings.IndexFunc(s[from:], func(r rune) bool { return 'a' <= r && r <= 'z' })
	return s[:i] + strings.ToUpper(s[i:i+1]) + s[i+1:]
}
