package peers

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/fanseal/fanseal"
)

// These tests check fanseal's reading and writing of age's key text
// against age's own code (filippo.io/age), which the main module does not
// depend on.

func TestAgeX25519Keys(t *testing.T) {
	unclamped := 0
	for range 64 {
		aid, err := age.GenerateX25519Identity()
		if err != nil {
			t.Fatal(err)
		}
		agePub := aid.Recipient().String()
		id, err := fanseal.ParseIdentity(aid.String())
		if err != nil {
			t.Fatalf("ParseIdentity(age-made identity): %v", err)
		}
		r, err := fanseal.ParseRecipient(agePub)
		if err != nil {
			t.Fatalf("ParseRecipient(%s): %v", agePub, err)
		}
		if got, _ := r.AgeString(); got != agePub {
			t.Fatalf("recipient %s writes back as %s", agePub, got)
		}
		if got, _ := id.Recipient().AgeString(); got != agePub || id.Recipient().String() != r.String() {
			t.Fatalf("the identity's recipient is %s, age says %s", got, agePub)
		}
		// fanseal writes the clamped scalar; age reads it as the same key.
		text, _ := id.AgeString()
		again, err := age.ParseX25519Identity(text)
		if err != nil || again.Recipient().String() != agePub {
			t.Fatalf("age reads fanseal's spelling %v as another key: %v", again, err)
		}
		if text != aid.String() {
			unclamped++
		}
		// And fanseal's own spelling of it parses back to the same key.
		fan, err := fanseal.ParseIdentity(id.String())
		if err != nil || fan.Recipient().String() != r.String() {
			t.Fatalf("fanseal spelling: %v", err)
		}
	}
	// age-keygen writes random bytes: nearly all are not clamped.
	if unclamped == 0 {
		t.Fatal("no age-made scalar was unclamped; the clamping path went untested")
	}
}

func TestAgeHybridKeysMatch(t *testing.T) {
	// age's ML-KEM-768+X25519 key is fanseal's mlkem768x25519 key, byte for
	// byte: the same 32-byte seed gives the same 1216-byte public key.
	for range 8 {
		aid, err := age.GenerateHybridIdentity()
		if err != nil {
			t.Fatal(err)
		}
		id, err := fanseal.ParseIdentity(aid.String())
		if err != nil {
			t.Fatalf("ParseIdentity(age-made hybrid identity): %v", err)
		}
		if id.Suite() != fanseal.MLKEM768X25519 {
			t.Fatalf("suite %s", id.Suite())
		}
		if got, _ := id.AgeString(); got != aid.String() {
			t.Fatal("hybrid identity does not write back as age wrote it")
		}
		if got, _ := id.Recipient().AgeString(); got != aid.Recipient().String() {
			t.Fatalf("public key from the seed differs from age's:\n%.60s…\n%.60s…", got, aid.Recipient().String())
		}
		r, err := fanseal.ParseRecipient(aid.Recipient().String())
		if err != nil || !bytes.Equal(r.Bytes(), id.Recipient().Bytes()) || len(r.Bytes()) != 1216 {
			t.Fatalf("ParseRecipient(age1pq1…): %v", err)
		}
	}
}

// TestAgeKeysOpen seals fanseal envelopes to keys in age's spelling and
// opens them with the identity in both spellings; and has age encrypt to
// and decrypt with fanseal-made keys written in age's spelling, which
// shows that age reads them as the same key pair.
func TestAgeKeysOpen(t *testing.T) {
	for _, suite := range []fanseal.Suite{fanseal.X25519, fanseal.MLKEM768X25519} {
		var ageSecret, agePub string
		if suite == fanseal.X25519 {
			aid, _ := age.GenerateX25519Identity()
			ageSecret, agePub = aid.String(), aid.Recipient().String()
		} else {
			aid, _ := age.GenerateHybridIdentity()
			ageSecret, agePub = aid.String(), aid.Recipient().String()
		}
		r, err := fanseal.ParseRecipient(agePub)
		if err != nil {
			t.Fatal(err)
		}
		other, _ := fanseal.GenerateIdentity(suite)
		env, err := fanseal.SealBytes([]byte("sealed to an age key"), other.Recipient(), r)
		if err != nil {
			t.Fatal(err)
		}
		ageSpelling, err := fanseal.ParseIdentity(ageSecret)
		if err != nil {
			t.Fatal(err)
		}
		fanSpelling, err := fanseal.ParseIdentity(ageSpelling.String())
		if err != nil {
			t.Fatal(err)
		}
		for name, id := range map[string]*fanseal.Identity{"age": ageSpelling, "fanseal": fanSpelling} {
			if pt, err := fanseal.OpenBytes(env, id); err != nil || string(pt) != "sealed to an age key" {
				t.Fatalf("%s: open with the %s spelling: %q, %v", suite, name, pt, err)
			}
		}

		// age, with fanseal's keys in age's spelling.
		fid, _ := fanseal.GenerateIdentity(suite)
		pub, _ := fid.Recipient().AgeString()
		sec, _ := fid.AgeString()
		recipients, err := age.ParseRecipients(strings.NewReader(pub))
		if err != nil {
			t.Fatalf("%s: age reads %.30s…: %v", suite, pub, err)
		}
		identities, err := age.ParseIdentities(strings.NewReader(sec))
		if err != nil {
			t.Fatalf("%s: age reads fanseal's identity: %v", suite, err)
		}
		var buf bytes.Buffer
		w, err := age.Encrypt(&buf, recipients...)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "age, with fanseal's key")
		w.Close()
		rd, err := age.Decrypt(&buf, identities...)
		if err != nil {
			t.Fatalf("%s: age decrypt with fanseal's identity: %v", suite, err)
		}
		if pt, _ := io.ReadAll(rd); string(pt) != "age, with fanseal's key" {
			t.Fatalf("%s: age decrypted %q", suite, pt)
		}
	}
}

// TestAgeKeygenFixtures checks the age-keygen files the main module's
// tests use: age reads each as the identity of its "# public key" line.
func TestAgeKeygenFixtures(t *testing.T) {
	for _, name := range []string{"x25519.key", "mlkem768x25519.key"} {
		b, err := os.ReadFile("../../testdata/age/" + name)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := age.ParseIdentities(bytes.NewReader(b))
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		var pub string
		switch id := ids[0].(type) {
		case *age.X25519Identity:
			pub = id.Recipient().String()
		case *age.HybridIdentity:
			pub = id.Recipient().String()
		}
		if !strings.Contains(string(b), "# public key: "+pub+"\n") {
			t.Fatalf("%s: age derives %s, not the file's public key", name, pub)
		}
	}
}

// TestAgeKeyMutations changes age-made key text in many small ways and
// checks that fanseal accepts exactly what age accepts, as the same key,
// and refuses the rest with ErrInvalidKey.
func TestAgeKeyMutations(t *testing.T) {
	xid, _ := age.GenerateX25519Identity()
	hid, _ := age.GenerateHybridIdentity()
	type parser struct {
		text    string
		age     func(string) (string, error) // the recipient's age text
		fanseal func(string) (string, error)
	}
	ageRecipient := func(s string) (string, error) {
		if strings.HasPrefix(s, "age1pq1") {
			r, err := age.ParseHybridRecipient(s)
			if err != nil {
				return "", err
			}
			return r.String(), nil
		}
		r, err := age.ParseX25519Recipient(s)
		if err != nil {
			return "", err
		}
		return r.String(), nil
	}
	ageIdentity := func(s string) (string, error) {
		if strings.HasPrefix(s, "AGE-SECRET-KEY-PQ-1") {
			i, err := age.ParseHybridIdentity(s)
			if err != nil {
				return "", err
			}
			return i.Recipient().String(), nil
		}
		i, err := age.ParseX25519Identity(s)
		if err != nil {
			return "", err
		}
		return i.Recipient().String(), nil
	}
	fanRecipient := func(s string) (string, error) {
		r, err := fanseal.ParseRecipient(s)
		if err != nil {
			return "", err
		}
		return r.AgeString()
	}
	fanIdentity := func(s string) (string, error) {
		i, err := fanseal.ParseIdentity(s)
		if err != nil {
			return "", err
		}
		return i.Recipient().AgeString()
	}
	cases := []parser{
		{xid.Recipient().String(), ageRecipient, fanRecipient},
		{xid.String(), ageIdentity, fanIdentity},
		{hid.Recipient().String(), ageRecipient, fanRecipient},
		{hid.String(), ageIdentity, fanIdentity},
	}
	accepted, refused := 0, 0
	for _, c := range cases {
		for _, m := range mutations(c.text) {
			want, ageErr := c.age(m)
			got, err := c.fanseal(m)
			switch {
			case ageErr == nil && err != nil:
				t.Errorf("age accepts %.40s… and fanseal refuses it: %v", m, err)
			case ageErr != nil && err == nil:
				t.Errorf("age refuses %.40s… (%v) and fanseal accepts it", m, ageErr)
			case err == nil && got != want:
				t.Errorf("%.40s…: fanseal reads key %.30s…, age %.30s…", m, got, want)
			case err != nil && !errors.Is(err, fanseal.ErrInvalidKey):
				t.Errorf("%.40s…: error %v is not ErrInvalidKey", m, err)
			case err == nil:
				accepted++
			default:
				refused++
			}
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("accepted %d, refused %d: the mutations test nothing", accepted, refused)
	}
}

// mutations returns s changed in the ways copy and paste and typing
// change key text: each character replaced by its neighbours in the
// Bech32 alphabet and by '1', one character's case flipped, the whole
// text's case flipped, characters dropped and added at each end.
func mutations(s string) []string {
	const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	upper := s == strings.ToUpper(s)
	var out []string
	step := 1
	if len(s) > 200 {
		step = 37 // the hybrid recipient: a sample of positions
	}
	for i := 0; i < len(s); i += step {
		c := strings.ToLower(s[i : i+1])
		j := strings.Index(charset, c)
		var subs []string
		if j >= 0 {
			subs = append(subs, charset[(j+1)%32:(j+1)%32+1], charset[(j+31)%32:(j+31)%32+1])
		}
		subs = append(subs, "1")
		for _, sub := range subs {
			if upper {
				sub = strings.ToUpper(sub)
			}
			out = append(out, s[:i]+sub+s[i+1:])
		}
		flipped := strings.ToUpper(s[i : i+1])
		if upper {
			flipped = strings.ToLower(s[i : i+1])
		}
		out = append(out, s[:i]+flipped+s[i+1:])
	}
	out = append(out, strings.ToUpper(s), strings.ToLower(s), s[:len(s)-1], s+"q", s+"Q", s[1:], " "+s, s+" ")
	return append(out, s) // and the text itself
}
