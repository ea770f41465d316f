package fanseal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
)

// age's text forms of keys (https://age-encryption.org/v1), read and
// written as a second spelling of the same keys:
//
//	age1…                 X25519 recipient (32-byte public key)
//	AGE-SECRET-KEY-1…     X25519 identity (32-byte scalar)
//	age1pq1…              ML-KEM-768+X25519 recipient (1216-byte public key)
//	AGE-SECRET-KEY-PQ-1…  ML-KEM-768+X25519 identity (32-byte seed)
//
// Each is Bech32 (BIP 173, not Bech32m) of the key bytes, without BIP 173's
// 90-character limit, with the human-readable part before the last "1".
// As age does, recipients are all lower case and identities all upper
// case, and the 8-to-5-bit conversion must end in at most 4 zero bits.
// age's ML-KEM-768+X25519 keys are the same KEM as the mlkem768x25519
// suite (MLKEM768-X25519 with its 32-byte seed), byte for byte.
//
// Bech32 is github.com/btcsuite/btcd/btcutil/bech32, with two checks of
// our own that age makes and BIP 173 does not: the checksum must be
// Bech32, not Bech32m, and the case must be the one of the key's type.
const (
	ageRecipientHRP       = "age"
	ageHybridRecipientHRP = "age1pq"
	ageIdentityHRP        = "AGE-SECRET-KEY-"
	ageHybridIdentityHRP  = "AGE-SECRET-KEY-PQ-"

	// maxAgeKeyLength bounds the text Bech32 decodes: an ML-KEM-768+X25519
	// recipient is 1 959 characters; age's CLI refuses lines over 8 KiB.
	maxAgeKeyLength = 8 << 10
)

// An UnsupportedKeyError reports key text that fanseal recognises but
// cannot use: age plugin and tagged keys, SSH keys, and age-encrypted
// (passphrase-protected) identity files. It matches ErrInvalidKey with
// errors.Is.
type UnsupportedKeyError struct {
	// Kind says what was given, e.g. "an SSH public key (ssh-ed25519)".
	Kind string
	// Identity is true where an identity was expected, false where a
	// recipient was.
	Identity bool
}

func (e *UnsupportedKeyError) Error() string {
	if e.Identity {
		return fmt.Sprintf("%v: %s is not supported: fanseal reads identities FANSEAL_SECRET_<SUITE>_…, age's AGE-SECRET-KEY-1… (X25519) and AGE-SECRET-KEY-PQ-1… (ML-KEM-768+X25519), and SSH private key files (ed25519, RSA, ECDSA P-256)", ErrInvalidKey, e.Kind)
	}
	return fmt.Sprintf("%v: %s is not supported: fanseal reads recipients fanseal_<suite>_…, age's age1… (X25519) and age1pq1… (ML-KEM-768+X25519), and ssh-ed25519, ssh-rsa and ecdsa-sha2-nistp256 public keys", ErrInvalidKey, e.Kind)
}

// Is reports whether target is ErrInvalidKey.
func (e *UnsupportedKeyError) Is(target error) bool { return target == ErrInvalidKey }

// parseAgeRecipient parses age1… and age1pq1… recipients.
func parseAgeRecipient(s string) (*Recipient, error) {
	hrp, key, err := decodeAge(s, false)
	if err != nil {
		return nil, err
	}
	var suite Suite
	switch hrp {
	case ageRecipientHRP:
		suite = X25519
	case ageHybridRecipientHRP:
		suite = MLKEM768X25519
	case "age1tag", "age1tagpq":
		return nil, &UnsupportedKeyError{Kind: fmt.Sprintf("an age tagged recipient (%s1…, for a hardware key behind an age plugin)", hrp)}
	default:
		return nil, &UnsupportedKeyError{Kind: fmt.Sprintf("an age plugin recipient (%s1…, for the plugin age-plugin-%s)", clip(hrp), clip(strings.TrimPrefix(hrp, "age1")))}
	}
	want := 32
	if suite == MLKEM768X25519 {
		want = 1216
	}
	if err := checkAgeKeySize("recipient", suite, key, want); err != nil {
		return nil, err
	}
	return NewRecipient(suite, key)
}

// parseAgeIdentity parses AGE-SECRET-KEY-1… and AGE-SECRET-KEY-PQ-1…
// identities. An X25519 scalar is taken as age writes it, unclamped, and
// clamped by NewIdentity.
func parseAgeIdentity(s string) (*Identity, error) {
	hrp, key, err := decodeAge(s, true)
	if err != nil {
		return nil, err
	}
	var suite Suite
	switch hrp {
	case ageIdentityHRP:
		suite = X25519
	case ageHybridIdentityHRP:
		suite = MLKEM768X25519
	default:
		if name, ok := strings.CutPrefix(hrp, "AGE-PLUGIN-"); ok {
			return nil, &UnsupportedKeyError{Kind: fmt.Sprintf("an age plugin identity (for the plugin age-plugin-%s)", clip(strings.ToLower(strings.TrimSuffix(name, "-")))), Identity: true}
		}
		return nil, fmt.Errorf("%w: unknown age identity type %q", ErrInvalidKey, clip(hrp))
	}
	if err := checkAgeKeySize("identity", suite, key, 32); err != nil {
		return nil, err
	}
	return NewIdentity(suite, key)
}

// clip shortens the type part of age key text for an error message.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

func checkAgeKeySize(what string, s Suite, key []byte, want int) error {
	if len(key) != want {
		return fmt.Errorf("%w: age %s %s is %d bytes, want %d", ErrInvalidKey, s, what, len(key), want)
	}
	return nil
}

// decodeAge decodes age key text and returns its human-readable part (in
// the case of its type: lower for recipients, upper for identities) and
// its bytes. Errors never quote the text, which may be secret.
func decodeAge(s string, identity bool) (string, []byte, error) {
	what := "age recipient"
	if identity {
		what = "age identity"
	}
	if len(s) > maxAgeKeyLength {
		return "", nil, fmt.Errorf("%w: %s is %d characters, longer than any age key", ErrInvalidKey, what, len(s))
	}
	hrp, data, version, err := bech32.DecodeNoLimitWithVersion(s)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %s is not valid Bech32: %s", ErrInvalidKey, what, bech32Problem(err))
	}
	if version != bech32.Version0 {
		return "", nil, fmt.Errorf("%w: %s has a Bech32m checksum; age keys use Bech32", ErrInvalidKey, what)
	}
	if identity && s != strings.ToUpper(s) {
		return "", nil, fmt.Errorf("%w: %s must be all upper case, as age writes it", ErrInvalidKey, what)
	}
	if !identity && s != strings.ToLower(s) {
		return "", nil, fmt.Errorf("%w: %s must be all lower case, as age writes it", ErrInvalidKey, what)
	}
	key, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		if len(data)*5%8 >= 5 {
			return "", nil, fmt.Errorf("%w: %s has a character past the end of its bytes", ErrInvalidKey, what)
		}
		return "", nil, fmt.Errorf("%w: %s has non-zero padding bits in its last character", ErrInvalidKey, what)
	}
	if identity {
		hrp = strings.ToUpper(hrp)
	}
	return hrp, key, nil
}

// bech32Problem says what is wrong, in words that do not repeat the text
// (the library's checksum error quotes the expected checksum).
func bech32Problem(err error) string {
	var (
		length    bech32.ErrInvalidLength
		separator bech32.ErrInvalidSeparatorIndex
		char      bech32.ErrInvalidCharacter
		nonset    bech32.ErrNonCharsetChar
		checksum  bech32.ErrInvalidChecksum
	)
	switch {
	case errors.As(err, &bech32.ErrMixedCase{}):
		return "it mixes upper and lower case"
	case errors.As(err, &checksum):
		return "bad checksum (mistyped or truncated?)"
	case errors.As(err, &length), errors.As(err, &separator):
		return "too short, or no 6-character checksum after the last \"1\""
	case errors.As(err, &char), errors.As(err, &nonset):
		return "a character outside the Bech32 alphabet"
	}
	return "malformed"
}

// ageEncode writes key in age's form with the human-readable part hrp, in
// upper case for identities.
func ageEncode(hrp string, key []byte) string {
	data, err := bech32.ConvertBits(key, 8, 5, true)
	if err != nil {
		panic("fanseal: bech32: " + err.Error()) // 8-to-5 with padding cannot fail
	}
	s, err := bech32.Encode(hrp, data)
	if err != nil {
		panic("fanseal: bech32: " + err.Error()) // 5-bit data cannot fail
	}
	if hrp == strings.ToUpper(hrp) {
		return strings.ToUpper(s)
	}
	return s
}

// AgeString returns the recipient in age's text form: age1… for X25519,
// age1pq1… for ML-KEM-768+X25519, and an ssh-ed25519 or ssh-rsa
// recipient's own line (age takes it as it is). age and ParseRecipient
// read it as the same key; String keeps fanseal's form. age has no form
// for P-256 and secp256k1 keys, an ecdsa-sha2-nistp256 one among them: for
// them AgeString returns ErrUnsupported.
func (r *Recipient) AgeString() (string, error) {
	if r.ssh.binding() != "" {
		// Not the age1… of the X25519 key an ssh-ed25519 key converts
		// to: age seals an ssh-ed25519 stanza to the line, which that
		// key's age1… would not be.
		return r.ssh.text, nil
	}
	switch r.suite {
	case X25519:
		return ageEncode(ageRecipientHRP, r.raw), nil
	case MLKEM768X25519:
		return ageEncode(ageHybridRecipientHRP, r.raw), nil
	}
	return "", fmt.Errorf("%w: age has no text form for %s keys (only x25519 and mlkem768x25519)", ErrUnsupported, r.suite)
}

// AgeString returns the identity in age's text form: AGE-SECRET-KEY-1… for
// X25519 (with the clamped scalar, which age reads as the same key),
// AGE-SECRET-KEY-PQ-1… for ML-KEM-768+X25519. age and ParseIdentity read
// it; String keeps fanseal's form. An ssh-ed25519 or ssh-rsa identity's is its private key file, which age
// reads too. For P-256 and secp256k1 keys, an ecdsa-sha2-nistp256 one
// among them, it returns ErrUnsupported. It is a secret: keep it out of
// logs.
func (i *Identity) AgeString() (string, error) {
	if i.text != "" && i.r.ssh.binding() != "" {
		return i.text, nil
	}
	switch i.suite {
	case X25519:
		return ageEncode(ageIdentityHRP, i.priv), nil
	case MLKEM768X25519:
		return ageEncode(ageHybridIdentityHRP, i.priv), nil
	}
	return "", fmt.Errorf("%w: age has no text form for %s keys (only x25519 and mlkem768x25519)", ErrUnsupported, i.suite)
}

// foreignKey explains text that is neither fanseal's nor age's form of
// the key expected (an identity if identity is true). It never quotes
// the text, which may be secret.
func foreignKey(s string, identity bool) error {
	unsupported := func(kind string) error { return &UnsupportedKeyError{Kind: kind, Identity: identity} }
	field, _, _ := strings.Cut(s, " ")
	upper := strings.ToUpper(s)
	switch {
	case strings.HasPrefix(s, "ssh-") || strings.HasPrefix(s, "ecdsa-sha2-") || strings.HasPrefix(s, "sk-ssh-") || strings.HasPrefix(s, "sk-ecdsa-"):
		return unsupported(fmt.Sprintf("an SSH public key (%s)", clip(field)))
	case strings.HasPrefix(s, "-----BEGIN AGE ENCRYPTED FILE-----"), strings.HasPrefix(s, "age-encryption.org/"):
		return unsupported("an age-encrypted file (a passphrase-protected identity file? fanseal has no passphrases: decrypt it with age first)")
	case strings.HasPrefix(s, "-----BEGIN "):
		return unsupported("a PEM private key (an SSH key?)")
	}
	if identity {
		switch {
		case strings.HasPrefix(s, recipientPrefix), strings.HasPrefix(strings.ToLower(s), "age1"):
			return fmt.Errorf("%w: a recipient (public key) where an identity (secret key) is expected", ErrInvalidKey)
		}
		return fmt.Errorf("%w: not an identity: want FANSEAL_SECRET_<SUITE>_…, AGE-SECRET-KEY-1… or AGE-SECRET-KEY-PQ-1…", ErrInvalidKey)
	}
	if strings.HasPrefix(upper, identityPrefix) || strings.HasPrefix(upper, "AGE-") {
		return fmt.Errorf("%w: an identity (secret key) where a recipient (public key) is expected; fanseal keygen -y prints an identity file's recipients", ErrInvalidKey)
	}
	return fmt.Errorf("%w: not a recipient: want fanseal_<suite>_…, age1… or age1pq1…", ErrInvalidKey)
}
