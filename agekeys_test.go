package fanseal

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Bech32 as BIP 173 specifies it, written out here so that the tests do
// not trust the module the code under test uses.
const specCharset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

func specPolymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

// specBech32 encodes 5-bit groups under hrp with the checksum constant
// (1 for Bech32, 0x2bc830a3 for Bech32m), in lower case.
func specBech32(hrp string, groups []byte, constant uint32) string {
	hrp = strings.ToLower(hrp)
	var values []byte
	for _, c := range []byte(hrp) {
		values = append(values, c>>5)
	}
	values = append(values, 0)
	for _, c := range []byte(hrp) {
		values = append(values, c&31)
	}
	values = append(values, groups...)
	mod := specPolymod(append(values, 0, 0, 0, 0, 0, 0)) ^ constant
	var b strings.Builder
	b.WriteString(hrp + "1")
	for _, g := range groups {
		b.WriteByte(specCharset[g])
	}
	for i := range 6 {
		b.WriteByte(specCharset[(mod>>(5*(5-i)))&31])
	}
	return b.String()
}

// toGroups splits bytes into 5-bit groups, the last padded with zeros.
func toGroups(data []byte) []byte {
	var out []byte
	acc, bits := 0, 0
	for _, c := range data {
		acc, bits = acc<<8|int(c), bits+8
		for bits >= 5 {
			bits -= 5
			out = append(out, byte(acc>>bits&31))
		}
	}
	if bits > 0 {
		out = append(out, byte(acc<<(5-bits)&31))
	}
	return out
}

func specAge(hrp string, key []byte) string {
	s := specBech32(hrp, toGroups(key), 1)
	if hrp == strings.ToUpper(hrp) {
		return strings.ToUpper(s)
	}
	return s
}

// ageKeygenFile returns the identity line and the "# public key:" line of
// a file written by age-keygen (filippo.io/age v1.3.2).
func ageKeygenFile(t *testing.T, name string) (file, identity, recipient string) {
	t.Helper()
	b, err := os.ReadFile("testdata/age/" + name)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if pub, ok := strings.CutPrefix(line, "# public key: "); ok {
			recipient = pub
		} else if !strings.HasPrefix(line, "#") {
			identity = line
		}
	}
	return string(b), identity, recipient
}

func TestAgeKeygenFiles(t *testing.T) {
	for _, tc := range []struct {
		file  string
		suite Suite
	}{{"x25519.key", X25519}, {"mlkem768x25519.key", MLKEM768X25519}} {
		file, secret, pub := ageKeygenFile(t, tc.file)
		ids, err := ParseIdentities(strings.NewReader(file))
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s: ParseIdentities = %v, %v", tc.file, ids, err)
		}
		id := ids[0]
		if id.Suite() != tc.suite {
			t.Fatalf("%s: suite %s", tc.file, id.Suite())
		}
		// age computed the public key line from the secret key.
		if got, _ := id.Recipient().AgeString(); got != pub {
			t.Fatalf("%s: public key %s, age-keygen says %s", tc.file, got, pub)
		}
		r, err := ParseRecipient(pub)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.Bytes(), id.Recipient().Bytes()) || r.KeyID() != id.Recipient().KeyID() || r.String() != id.Recipient().String() {
			t.Fatalf("%s: age recipient and identity disagree", tc.file)
		}
		if got, _ := r.AgeString(); got != pub {
			t.Fatalf("%s: recipient %s writes back as %s", tc.file, pub, got)
		}
		// fanseal's spelling of the same identity.
		again, err := ParseIdentity(id.String())
		if err != nil || again.Recipient().String() != r.String() {
			t.Fatalf("%s: fanseal spelling of the age identity: %v", tc.file, err)
		}
		ageText, _ := id.AgeString()
		if tc.suite == MLKEM768X25519 && ageText != secret {
			t.Fatalf("%s: identity writes back as another text", tc.file)
		}
		if tc.suite == X25519 {
			// This age-keygen key has an unclamped scalar; fanseal writes
			// the clamped one, which is the same key.
			if ageText == secret {
				t.Fatalf("%s: expected the fixture's scalar to be unclamped", tc.file)
			}
			back, err := ParseIdentity(ageText)
			if err != nil || back.Recipient().String() != r.String() {
				t.Fatalf("%s: clamped age spelling: %v", tc.file, err)
			}
			if again, _ := back.AgeString(); again != ageText {
				t.Fatalf("%s: clamped age spelling is not a fixed point", tc.file)
			}
		}
	}
}

func TestAgeRecipientOpens(t *testing.T) {
	for _, name := range []string{"x25519.key", "mlkem768x25519.key"} {
		_, secret, pub := ageKeygenFile(t, name)
		r, err := ParseRecipient(pub)
		if err != nil {
			t.Fatal(err)
		}
		others, _ := identities(t, r.Suite(), 1)
		env, err := SealBytes([]byte("for the team"), others[0].Recipient(), r)
		if err != nil {
			t.Fatal(err)
		}
		ageID, err := ParseIdentity(secret)
		if err != nil {
			t.Fatal(err)
		}
		fanID, err := ParseIdentity(ageID.String())
		if err != nil {
			t.Fatal(err)
		}
		for spelling, id := range map[string]*Identity{"age": ageID, "fanseal": fanID} {
			pt, err := OpenBytes(env, id)
			if err != nil || string(pt) != "for the team" {
				t.Fatalf("%s: opening with the %s spelling: %q, %v", name, spelling, pt, err)
			}
		}
	}
}

func TestAgeString(t *testing.T) {
	for _, s := range []Suite{X25519, MLKEM768X25519} {
		ids, rs := identities(t, s, 1)
		hrp, idHRP := "age", "AGE-SECRET-KEY-"
		if s == MLKEM768X25519 {
			hrp, idHRP = "age1pq", "AGE-SECRET-KEY-PQ-"
		}
		got, err := rs[0].AgeString()
		if want := specAge(hrp, rs[0].Bytes()); err != nil || got != want {
			t.Fatalf("%s: recipient AgeString = %.40s, %v; want %.40s", s, got, err, want)
		}
		back, err := ParseRecipient(got)
		if err != nil || back.String() != rs[0].String() {
			t.Fatalf("%s: ParseRecipient(AgeString) = %v", s, err)
		}
		sec, err := ids[0].AgeString()
		if err != nil || !strings.HasPrefix(sec, idHRP+"1") || sec != strings.ToUpper(sec) {
			t.Fatalf("%s: identity AgeString %.20s, %v", s, sec, err)
		}
		bi, err := ParseIdentity(sec)
		if err != nil || bi.String() != ids[0].String() {
			t.Fatalf("%s: ParseIdentity(AgeString) = %v", s, err)
		}
	}
	for _, s := range []Suite{P256, Secp256k1} {
		ids, rs := identities(t, s, 1)
		if _, err := rs[0].AgeString(); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s recipient AgeString error = %v", s, err)
		}
		if _, err := ids[0].AgeString(); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s identity AgeString error = %v", s, err)
		}
	}
}

func TestAgeBech32Errors(t *testing.T) {
	_, secret, pub := ageKeygenFile(t, "x25519.key")
	_, _, pqPub := ageKeygenFile(t, "mlkem768x25519.key")
	key := bytes.Repeat([]byte{0x40}, 32)
	groups := toGroups(key) // 52 groups: 256 bits and 4 zero bits
	padded := bytes.Clone(groups)
	padded[len(padded)-1] |= 1
	swap := func(s string, i int) string {
		c := s[i]
		n := specCharset[(strings.IndexByte(specCharset, c|0x20)+1)%32]
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && s == strings.ToUpper(s) {
			n = strings.ToUpper(string(n))[0]
		}
		return s[:i] + string(n) + s[i+1:]
	}
	type tc struct {
		text, why string
	}
	recipients := map[string]tc{
		"bad-checksum":     {swap(pub, 20), "checksum"},
		"bad-checksum-end": {swap(pub, len(pub)-1), "checksum"},
		"pq-bad-checksum":  {swap(pqPub, 900), "checksum"},
		"truncated":        {pub[:len(pub)-1], "checksum"},
		"mixed-case":       {pub[:10] + strings.ToUpper(pub[10:12]) + pub[12:], "mixes"},
		"upper-case":       {strings.ToUpper(pub), "lower case"},
		"bech32m":          {specBech32("age", groups, 0x2bc830a3), "Bech32m"},
		"non-zero-padding": {specBech32("age", padded, 1), "padding"},
		"extra-group":      {specBech32("age", append(bytes.Clone(groups), 0, 0), 1), "past the end"},
		"short-key":        {specAge("age", key[:31]), "31 bytes"},
		"long-key":         {specAge("age", append(bytes.Clone(key), 0)), "33 bytes"},
		"pq-short-key":     {specAge("age1pq", make([]byte, 1215)), "1215 bytes"},
		"not-alphabet":     {pub[:20] + "b" + pub[21:], "alphabet"},
		"no-checksum":      {"age1qqq", "too short"},
		"only-hrp":         {"age1", "too short"},
		"too-long":         {"age1" + strings.Repeat("q", 9000), "longer than any"},
		"identity-as-rcp":  {secret, "identity (secret key) where a recipient"},
		"unknown":          {"github:alice", "not a recipient"},
	}
	for name, c := range recipients {
		_, err := ParseRecipient(c.text)
		if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("recipient %s: error = %v, want ErrInvalidKey saying %q", name, err, c.why)
		}
	}
	identitiesCases := map[string]tc{
		"bad-checksum":     {swap(secret, 30), "checksum"},
		"truncated":        {secret[:len(secret)-1], "checksum"},
		"mixed-case":       {secret[:20] + strings.ToLower(secret[20:22]) + secret[22:], "mixes"},
		"lower-case":       {strings.ToLower(secret), "upper case"},
		"bech32m":          {strings.ToUpper(specBech32("AGE-SECRET-KEY-", groups, 0x2bc830a3)), "Bech32m"},
		"non-zero-padding": {strings.ToUpper(specBech32("AGE-SECRET-KEY-", padded, 1)), "padding"},
		"short-key":        {specAge("AGE-SECRET-KEY-", key[:31]), "31 bytes"},
		"pq-long-seed":     {specAge("AGE-SECRET-KEY-PQ-", make([]byte, 33)), "33 bytes"},
		"wrong-hrp":        {specAge("AGE-SECRET-KEY-X-", key), "unknown age identity type"},
		"recipient-as-id":  {pub, "recipient (public key) where an identity"},
		"not-alphabet":     {secret[:30] + "O" + secret[31:], "alphabet"},
		"recipient-upper":  {strings.ToUpper(pub), "recipient (public key) where an identity"},
		"unknown":          {"-----BEGIN PUBLIC KEY-----x", "PEM"},
	}
	for name, c := range identitiesCases {
		_, err := ParseIdentity(c.text)
		if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("identity %s: error = %v, want ErrInvalidKey saying %q", name, err, c.why)
		}
		if err != nil && len(c.text) > 20 && strings.Contains(err.Error(), c.text[16:]) {
			t.Errorf("identity %s: the error quotes the secret: %v", name, err)
		}
	}
	// The cases above are refused for what they break, not by accident:
	// the same construction with nothing broken parses.
	if _, err := ParseRecipient(specBech32("age", groups, 1)); err != nil {
		t.Fatalf("the test's Bech32 encoder is wrong: %v", err)
	}
	if _, err := ParseIdentity(strings.ToUpper(specBech32("AGE-SECRET-KEY-", groups, 1))); err != nil {
		t.Fatalf("the test's Bech32 encoder is wrong: %v", err)
	}
}

func TestAgeUnsupported(t *testing.T) {
	const sshEd25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmLgBVdX3GQCc1o3sA8oOE+Ebs1v8c7OEh7eVW1Mb3U alice@example"
	const sshRSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 bob@example"
	data := bytes.Repeat([]byte{7}, 20)
	for name, c := range map[string]struct {
		text, kind string
		identity   bool
	}{
		"sk-ed25519":         {"sk-ssh-ed25519@openssh.com AAAA", "SSH key of type sk-ssh-ed25519@openssh.com", false},
		"ecdsa-p384":         {"ecdsa-sha2-nistp384 AAAA", "SSH key of type ecdsa-sha2-nistp384", false},
		"plugin-recipient":   {specAge("age1yubikey", data), "age-plugin-yubikey", false},
		"tagged-recipient":   {specAge("age1tag", make([]byte, 33)), "tagged", false},
		"tagged-pq":          {specAge("age1tagpq", make([]byte, 33)), "tagged", false},
		"plugin-identity":    {specAge("AGE-PLUGIN-YUBIKEY-", data), "age-plugin-yubikey", true},
		"ssh-as-identity":    {sshEd25519, "SSH public key", true},
		"ssh-private-key":    {"-----BEGIN OPENSSH PRIVATE KEY-----", "PEM private key", true},
		"passphrase-file":    {"age-encryption.org/v1", "passphrase", true},
		"passphrase-armored": {"-----BEGIN AGE ENCRYPTED FILE-----", "passphrase", true},
	} {
		var err error
		if c.identity {
			_, err = ParseIdentity(c.text)
		} else {
			_, err = ParseRecipient(c.text)
		}
		var u *UnsupportedKeyError
		if !errors.As(err, &u) || !errors.Is(err, ErrInvalidKey) || !strings.Contains(u.Kind, c.kind) || u.Identity != c.identity {
			t.Errorf("%s: error = %v, want an *UnsupportedKeyError matching ErrInvalidKey about %q", name, err, c.kind)
			continue
		}
		want := "age1…"
		if c.identity {
			want = "AGE-SECRET-KEY-1…"
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not say what is supported", name, err)
		}
	}
	// SSH keys are read now (ssh_test.go); a damaged one is an invalid
	// key.
	for _, line := range []string{sshEd25519, sshRSA, "ecdsa-sha2-nistp256 AAAAE2VjZHNh"} {
		if _, err := ParseRecipient(line); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("%.20s: %v", line, err)
		}
	}
	if _, err := ParseIdentities(strings.NewReader("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n")); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("damaged SSH key file: %v", err)
	}
	// In files, as age-keygen and age -p write them.
	for name, file := range map[string]string{
		"passphrase": "age-encryption.org/v1\n-> scrypt c2FsdA 18\nAAAA\n--- AAAA\n",
	} {
		_, err := ParseIdentities(strings.NewReader(file))
		var u *UnsupportedKeyError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s identity file: error = %v, want *UnsupportedKeyError at line 1", name, err)
		}
	}
	_, err := ParseRecipients(strings.NewReader("# team\nage1yubikey1qqqqqqqqqqqqqqqqqqq\n"))
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("recipients file: error = %v", err)
	}
}

func TestAgeKeyFilesMixed(t *testing.T) {
	_, secret, pub := ageKeygenFile(t, "x25519.key")
	ids, rs := identities(t, X25519, 1)
	rfile := "# age and fanseal, mixed\n" + pub + "\n\n" + rs[0].String() + "\n"
	got, err := ParseRecipients(strings.NewReader(rfile))
	if err != nil || len(got) != 2 || got[1].String() != rs[0].String() {
		t.Fatalf("ParseRecipients = %v, %v", got, err)
	}
	ifile := "# created: 2026-01-01T00:00:00Z\n# public key: " + pub + "\n" + secret + "\n" + ids[0].String() + "\n"
	gotIDs, err := ParseIdentities(strings.NewReader(ifile))
	if err != nil || len(gotIDs) != 2 {
		t.Fatalf("ParseIdentities = %v, %v", gotIDs, err)
	}
	env, err := SealBytes([]byte("x"), got...)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range gotIDs {
		if _, err := OpenBytes(env, id); err != nil {
			t.Fatalf("open: %v", err)
		}
	}
}
