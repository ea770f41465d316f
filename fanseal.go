// Package fanseal seals one payload for many recipients, so that each
// recipient opens it with a single key agreement, whatever the number of
// recipients.
//
// # Start here
//
// Keys: GenerateIdentity makes a secret key (an Identity) of a Suite, and
// Identity.Recipient is its public key; ParseRecipient, ParseRecipients,
// ParseIdentity and ParseIdentities read their text forms (fanseal's, and
// age's age1… and AGE-SECRET-KEY-1… for the suites age shares).
// ParseRecipient also takes SSH public key lines (ssh-ed25519, ssh-rsa,
// ecdsa-sha2-nistp256), and ParseSSHIdentity, NewEncryptedSSHIdentity
// and ParseIdentities SSH private key files; NewScryptRecipient and
// NewScryptIdentityFunc seal to and open with a passphrase;
// NewWrappedRecipient and NewWrappedIdentity carry any age recipient's
// stanzas (a plugin's), through the SecretWrapper and SecretUnwrapper
// interfaces, without this module depending on age.
//
// Sealing: SealBytes seals a payload held in memory for every recipient,
// Seal streams one of any size. Opening: OpenBytes and Open, with the
// identities you hold; OpenAll opens a burst of envelopes, with their key
// agreements batched.
//
//	envelope, err := fanseal.SealBytes(payload, recipients...)
//	payload, err := fanseal.OpenBytes(envelope, identity)
//
// Strategies: a Sealer chooses how the per-recipient work is done (its
// Strategy: sequential, parallel, one shared ephemeral key, precomputed
// agreements from a Precomputer, or static channel keys from a Keyring),
// and an Opener keeps what repeated opens can reuse (a SessionCache) and
// sets the limits a reader enforces. Every strategy writes envelopes that
// every reader opens the same way.
//
// # The envelope
//
// An envelope carries a random file key wrapped once per recipient in a
// stanza, a header MAC keyed from the file key over every stanza, and the
// payload encrypted in 64 KiB chunks. A P-256 or X25519 stanza is a
// standard RFC 9180 HPKE base-mode ciphertext. Stanzas carry a short key
// identifier, so Open goes straight to its own stanza without trial
// decryption; an anonymous mode (Sealer.Anonymous) omits them.
//
// Recipients and identities exist for four suites: DHKEM(P-256),
// DHKEM(X25519), DHKEM(secp256k1), all with HKDF-SHA256, and the
// post-quantum hybrid ML-KEM-768+X25519. The payload and stanza AEAD is
// AES-256-GCM unless the Sealer selects ChaCha20-Poly1305. The format is
// specified in docs/FORMAT.md.
//
// # Limits
//
// Every bound a reader or writer enforces is an error when it is hit,
// never a silent stop: MaxRecipients recipients an envelope; a header of
// at most 16 MiB; DefaultMaxAnonymousTrials trial decryptions for an
// anonymous envelope (Opener.MaxAnonymousTrials), which also bounds the
// trials of age stanzas, and of ssh-rsa stanzas at 8 trials each; a scrypt
// work factor of 2^DefaultMaxScryptLogN for a passphrase, checked before
// it is asked; ssh-rsa keys of 2 048 to 4 096 bits; MaxIdentities identities
// and MaxKeyFileSize bytes a key file; DefaultCacheSize entries for
// DefaultCacheTTL in a SessionCache, and DefaultKeyringCacheSize channels
// in a Keyring. docs/SECURITY.md says what each bound costs at most.
package fanseal

import "github.com/fanseal/fanseal/internal/errs"

// Errors returned by Open, Seal and key parsing. Every error fanseal returns
// for bad input matches one of these with errors.Is; the error's text says
// what went wrong and where.
var (
	// ErrNotRecipient: none of the identities can open the envelope.
	ErrNotRecipient = errs.NotRecipient
	// ErrMalformed: the envelope or armor is not well formed.
	ErrMalformed = errs.Malformed
	// ErrAuthentication: a stanza, the header MAC or a payload chunk does
	// not authenticate: the envelope was tampered with or is corrupted.
	ErrAuthentication = errs.Authentication
	// ErrTruncated: the envelope ends early.
	ErrTruncated = errs.Truncated
	// ErrUnsupported: an unknown version, AEAD, suite or flag.
	ErrUnsupported = errs.Unsupported
	// ErrInvalidKey: a key string or file is malformed, has a bad checksum,
	// is not in the one canonical text of its key, encodes an invalid
	// point or scalar, or is a kind of key fanseal cannot use (an
	// *UnsupportedKeyError: age plugin and SSH keys, passphrases).
	ErrInvalidKey = errs.InvalidKey
	// ErrDuplicateRecipient: a recipient is given twice.
	ErrDuplicateRecipient = errs.DuplicateRecipient
	// ErrMixedSuites: post-quantum and classical recipients in one
	// envelope, which would leave the payload only classically protected.
	ErrMixedSuites = errs.MixedSuites
	// ErrRecipientCount: no recipients, or more than MaxRecipients.
	ErrRecipientCount = errs.RecipientCount
	// ErrAnonymousLimit: an anonymous envelope that would take more trial
	// decryptions than Opener.MaxAnonymousTrials allows, refused before
	// any key agreement; or, from a Sealer, an anonymous envelope with more
	// than DefaultMaxAnonymousTrials recipients of one suite, which the
	// default Opener would refuse. It also matches ErrUnsupported.
	ErrAnonymousLimit = errs.AnonymousLimit
)
