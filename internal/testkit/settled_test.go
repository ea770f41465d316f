package testkit

// The vectors of the points that FORMAT.md settles where implementers
// found it ambiguous: the stanza type registry, type 0x08 verdicts, rule
// 12 per envelope kind, ssh-rsa candidates, authentication over "not a
// recipient", SSH key text, the channel's sender identifier, the order of
// several faults, empty last chunks and the armor's CRs and byte counts.
// Each is built from the document alone, like every other vector.

import (
	"bytes"
	"encoding/base64"
	"math/big"
	"strings"
)

// settledVectors: every settled point that a vector can express.
func settledVectors(k *kit) {
	registryVectors(k)
	ageVerdictVectors(k)
	trialKindVectors(k)
	precedenceVectors(k)
	faultOrderVectors(k)
	emptyChunkVectors(k)
	armorCRVectors(k)
	sshTextVectors(k)
	channelSenderVectors(k)
}

// unassigned lists types of the registry's unassigned ranges: 0x00, the
// withdrawn 0x05, and 0x09 to 0xff.
var unassigned = []byte{0x00, 0x05, 0x09, 0x10, 0x7f, 0x80, 0xfe, 0xff}

// registryVectors: FORMAT.md, "Stanzas": a reader skips a stanza of an
// unassigned type (0x05 included) whatever its body, in every envelope,
// and the header MAC covers it; the withdrawn draft numbering means
// nothing.
func registryVectors(k *kit) {
	rsaA := sshRSA("alice", 2048)
	// around returns the stanzas of an unassigned type, with bodies of
	// several lengths (0x05 with the length of an identified ssh-rsa
	// stanza), around the stanzas mine.
	around := func(g *gen, mine ...stanza) []stanza {
		var ss []stanza
		for i, typ := range unassigned {
			if i == len(unassigned)/2 {
				ss = append(ss, mine...)
			}
			switch typ {
			case 0x00:
				ss = append(ss, raw(typ, nil))
			case 0x05:
				ss = append(ss, raw(typ, g.rand(keyIDSize+256)))
			default:
				ss = append(ss, raw(typ, g.rand(1+int(typ)%97)))
			}
		}
		return ss
	}
	kinds := []struct {
		suffix, what string
		flags        byte
	}{
		{"", "with key identifiers", 0},
		{"_anonymous", "anonymous", 1},
		{"_private", "private", 4},
	}
	const types = "0x00, 0x05 (withdrawn), 0x09, 0x10, 0x7f, 0x80, 0xfe and 0xff"
	for _, c := range kinds {
		env := func(g *gen) *envelope {
			e := g.newEnvelope(aeadAESGCM, false)
			e.flags = c.flags
			if e.private() {
				sh := g.shared(x25519)
				return e.add(around(g, sh.ephemeral(), sh.to(bob(x25519)), sh.to(me))...)
			}
			return e.add(around(g, g.hpke(bob(x25519)), g.hpke(me))...)
		}
		k.add("skip_unassigned_types"+c.suffix, func(g *gen) *Vector {
			e := env(g)
			e.payload = g.text()
			return open(Success, "the type registry: stanzas of the unassigned types "+types+" around bob's and the reader's, "+c.what+": skipped, whatever their bodies", e, me)
		})
		k.add("skip_unassigned_type_flipped"+c.suffix, func(g *gen) *Vector {
			e := env(g)
			e.payload = g.text()
			enc := e.encode()
			// The last stanza, of type 0xff, is skipped but covered by the MAC.
			return result(Authentication, "rule 14: the type registry: stanzas of the unassigned types "+types+" around bob's and the reader's, "+c.what+", a bit flipped in the body of the last (type 0xff): the header MAC covers a skipped stanza",
				flip(enc.bytes, enc.stanzaEnd[len(enc.stanzaEnd)-1]-1), nil, me)
		})
		// The draft numbered ssh-rsa 0x05: the reader's ssh-rsa stanza
		// under that number is a stanza of an unassigned type.
		k.add("skip_type_05_draft_ssh_rsa"+c.suffix, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false)
			e.flags = c.flags
			s := g.rsaStanza(rsaA, nil, nil)
			draft := func(e *envelope, pre []byte) (byte, []byte) {
				_, body := s(e, pre)
				return 0x05, body
			}
			if e.private() {
				sh := g.shared(x25519)
				e.add(sh.ephemeral(), sh.to(bob(x25519)), draft)
			} else {
				e.add(g.hpke(bob(x25519)), draft)
			}
			e.payload = g.text()
			return reader{ssh: []*sshKey{rsaA}}.vector(NotRecipient, "rule 13: the type registry: an X25519 stanza for bob and the reader's ssh-rsa stanza under type 0x05, the withdrawn draft's number for ssh-rsa, "+c.what+": 0x05 is unassigned, skipped, and the reader has no stanza", e)
		})
	}
	// The draft numbered scrypt 0x06 and the age stanza 0x07: such a
	// stanza is judged as the type its number now names.
	k.held("ssh_rsa_draft_scrypt_stanza", Malformed, "rule 11b: the type registry: a type 0x07 (scrypt) stanza body under type 0x06, the withdrawn draft's number for scrypt, alone: judged as ssh-rsa, its L = 65 is not 8 + k",
		aeadAESGCM, false, reader{passphrase: kitPassphrase}, func(g *gen) []stanza {
			s := g.scryptStanza(kitPassphrase, 10, 10, scryptLabel)
			return []stanza{func(e *envelope, pre []byte) (byte, []byte) {
				_, body := s(e, pre)
				return 0x06, body
			}}
		})
	ageA := named(x25519, "age alice")
	k.held("scrypt_draft_age_stanza", Malformed, "rule 11c: the type registry: a type 0x08 (age stanza) body carrying an age X25519 stanza for the reader's age identity under type 0x07, the withdrawn draft's number for the age stanza, alone: judged as scrypt, its L = 134 is not 65",
		aeadAESGCM, false, reader{age: []*key{ageA}}, func(g *gen) []stanza {
			secret := g.rand(16)
			s := ageWrapped(g.ageX25519(ageA, secret), secret, nil)
			return []stanza{func(e *envelope, pre []byte) (byte, []byte) {
				_, body := s(e, pre)
				if len(body) != 134 {
					panic("scrypt_draft_age_stanza: the body is not 134 bytes")
				}
				return 0x07, body
			}}
		})
}

// ageVerdictVectors: FORMAT.md, "Type 0x08": a 16-byte secret is tried on
// every type 0x08 ct, and an age identity that fails on the age stanzas
// together is asked for each alone, so no verdict depends on where the
// age stanzas stand.
func ageVerdictVectors(k *kit) {
	a, b := named(x25519, "age alice"), named(x25519, "age bob")
	ra := reader{age: []*key{a}}
	// mine is the reader's age stanza of secret, whose ct is sealed under
	// another secret; bobs is bob's age stanza of secret, whose ct opens
	// under it.
	pair := func(g *gen) (mine, bobs stanza) {
		secret := g.rand(16)
		return ageWrapped(g.ageX25519(a, secret), g.rand(16), nil), ageWrapped(g.ageX25519(b, secret), secret, nil)
	}
	k.held("age_stanza_secret_opens_later_ct", Success, "type 0x08: the reader's age stanza, whose ct its secret does not open, then bob's age stanza of the same secret, whose ct it opens: the secret is tried on every ct",
		aeadAESGCM, false, ra, func(g *gen) []stanza {
			mine, bobs := pair(g)
			return []stanza{mine, bobs}
		})
	k.held("age_stanza_secret_opens_earlier_ct", Success, "type 0x08: bob's age stanza, whose ct the reader's secret opens, then the reader's age stanza of the same secret, whose ct it does not open: the secret is tried on every ct",
		aeadAESGCM, false, ra, func(g *gen) []stanza {
			mine, bobs := pair(g)
			return []stanza{bobs, mine}
		})
	// A malformed age X25519 stanza (three words), on which age's X25519
	// identity fails whoever it is for; the reader's good stanza beside it
	// opens whichever comes first.
	malformed := func(g *gen) stanza {
		share := base64.RawStdEncoding.EncodeToString(g.ephemeral(x25519).pk)
		return ageWrapped(&ageStanza{words: []string{"X25519", share, "extra"}, body: g.rand(32)}, g.rand(16), nil)
	}
	mine := func(g *gen) stanza {
		secret := g.rand(16)
		return ageWrapped(g.ageX25519(a, secret), secret, nil)
	}
	k.held("age_stanza_malformed_x25519_before_mine", Success, "type 0x08: an age X25519 stanza of three words (type, share and one more), on which age's X25519 identity fails, then the reader's age stanza: the identity is asked for each age stanza alone, and the second gives the secret",
		aeadAESGCM, false, ra, func(g *gen) []stanza { return []stanza{malformed(g), mine(g)} })
	k.held("age_stanza_malformed_x25519", Authentication, "type 0x08: an age X25519 stanza of three words alone, on which age's X25519 identity fails with an error of its own: authentication failure (rule 14), neither not a recipient nor malformed",
		aeadAESGCM, false, ra, func(g *gen) []stanza { return []stanza{malformed(g)} })
	k.held("age_stanza_malformed_x25519_after_mine", Success, "type 0x08: the reader's age stanza, then an age X25519 stanza of three words, on which age's X25519 identity fails: the first gives the secret, whatever comes after",
		aeadAESGCM, false, ra, func(g *gen) []stanza { return []stanza{mine(g), malformed(g)} })
	// What the identity answers decides, anonymous flag or not.
	for _, c := range []struct {
		suffix, what string
		flags        byte
	}{{"_anonymous", "anonymous", 1}, {"_private", "a private envelope", 4}} {
		env := func(g *gen, ss ...stanza) *envelope {
			e := g.newEnvelope(aeadAESGCM, false)
			e.flags = c.flags
			if e.private() {
				sh := g.shared(x25519)
				e.add(sh.ephemeral(), sh.to(bob(x25519)))
			} else {
				e.add(g.hpke(bob(x25519)))
			}
			e.add(ss...)
			e.payload = g.text()
			return e
		}
		k.add("age_stanza_not_recipient"+c.suffix, func(g *gen) *Vector {
			secret := g.rand(16)
			return ra.vector(NotRecipient, "rule 13: "+c.what+"; an X25519 stanza for bob and a type 0x08 stanza for bob's age X25519 key: age's X25519 identity finds none of its stanzas", env(g, ageWrapped(g.ageX25519(b, secret), secret, nil)))
		})
		k.add("age_stanza_wrong_secret"+c.suffix, func(g *gen) *Vector {
			return ra.vector(Authentication, "rule 14: "+c.what+"; an X25519 stanza for bob and the reader's age stanza, which wraps a secret while the file key is sealed under another: the secret opens no ct", env(g, ageWrapped(g.ageX25519(a, g.rand(16)), g.rand(16), nil)))
		})
	}
	k.held("age_stanza_malformed_x25519_before_mine_anonymous", Success, "type 0x08: anonymous; an age X25519 stanza of three words, on which age's X25519 identity fails, then the reader's age stanza: the identity is asked for each alone, anonymous flag or not",
		aeadAESGCM, true, ra, func(g *gen) []stanza { return []stanza{malformed(g), mine(g)} })
}

// trialKindVectors: rule 12 per envelope kind: anonymous, every pair of
// a candidate; private, only type 0x06 (L = k) and type 0x08 pairs; with
// key identifiers, only type 0x08 pairs.
func trialKindVectors(k *kit) {
	a := named(x25519, "age alice")
	rsaA, rsaB := sshRSA("alice", 2048), sshRSA("bob", 2048)
	ageNobody := func(g *gen, n int) []stanza {
		var ss []stanza
		for range n {
			share := base64.RawStdEncoding.EncodeToString(g.ephemeral(x25519).pk)
			ss = append(ss, ageWrapped(&ageStanza{words: []string{"X25519", share}, body: g.rand(32)}, g.rand(16), nil))
		}
		return ss
	}
	both := reader{ids: []*key{me}, age: []*key{a}}
	k.held("age_stanza_trials_1000_identified_x25519", Success, "rule 12: with key identifiers; type 0x01 stanzas for bob and the reader, then 1 000 type 0x08 stanzas for nobody, read with an X25519 identity and an age identity: only the 1 000 type 0x08 pairs count",
		aeadAESGCM, false, both, func(g *gen) []stanza {
			return append([]stanza{g.hpke(bob(x25519)), g.hpke(me)}, ageNobody(g, 1000)...)
		})
	k.heldPrivate("age_stanza_private_trials_1000_x25519", Success, "rule 12: a private envelope: an X25519 ephemeral key, bob's and the reader's type 0x03 stanzas, then 1 000 type 0x08 stanzas for nobody, read with an X25519 identity and an age identity: the type 0x03 stanzas count for nothing, 1 000 trials",
		aeadAESGCM, both, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return append([]stanza{sh.ephemeral(), sh.to(bob(x25519)), sh.to(me)}, ageNobody(g, 1000)...)
		})
	rsaNobody := func(g *gen, n, size int, id bool) []stanza {
		var ss []stanza
		for range n {
			var kid []byte
			if id {
				kid = g.rand(keyIDSize)
			}
			ss = append(ss, raw(0x06, cat(kid, g.rand(size))))
		}
		return ss
	}
	ra := reader{ssh: []*sshKey{rsaA}}
	k.held("ssh_rsa_trials_identified_201", Success, "rule 12: with key identifiers; 200 type 0x06 stanzas of L = 8 + 256 for nobody (other identifiers), then the reader's: no type 0x06 pair counts (201 × 8 would be 1 608)",
		aeadAESGCM, false, ra, func(g *gen) []stanza { return append(rsaNobody(g, 200, 256, true), g.rsaStanza(rsaA, nil, nil)) })
	k.heldPrivate("ssh_rsa_private_trials_other_size", Success, "rule 12: a private envelope: 200 type 0x06 stanzas of L = 384 for nobody, then the reader's of L = 256: a stanza of another L is no candidate of the 2 048-bit identity, 8 trials",
		aeadAESGCM, ra, func(g *gen) []stanza { return append(rsaNobody(g, 200, 384, false), g.rsaStanza(rsaA, nil, nil)) })
	// Without identifiers, a type 0x06 stanza of another L is no
	// candidate: not a recipient, whatever it holds.
	rsa3072 := func(g *gen) stanza {
		return raw(0x06, g.rand(384))
	}
	k.held("ssh_rsa_anonymous_other_size_only", NotRecipient, "rule 13: anonymous; an X25519 stanza for bob and a type 0x06 stanza of L = 384, read with a 2 048-bit ssh-rsa identity: no candidate",
		aeadAESGCM, true, ra, func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), rsa3072(g)} })
	k.heldPrivate("ssh_rsa_private_other_size_only", NotRecipient, "rule 13: a private envelope: an X25519 ephemeral key and bob's type 0x03 stanza, and a type 0x06 stanza of L = 384, read with a 2 048-bit ssh-rsa identity: no candidate",
		aeadAESGCM, ra, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(bob(x25519)), rsa3072(g)}
		})
	k.heldPrivate("ssh_rsa_private_other_key", NotRecipient, "rule 13: a private envelope: an X25519 ephemeral key and bob's type 0x03 stanza, and a type 0x06 stanza of L = 256 that bob's 2 048-bit ssh-rsa key decrypts: the reader's one candidate does not decrypt, someone else's",
		aeadAESGCM, ra, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(bob(x25519)), g.rsaStanza(rsaB, nil, nil)}
		})
}

// precedenceVectors: rules 13 and 14: when no candidate opens and both a
// failure of rule 14 and a "not a recipient" of rule 13 occur, the
// verdict is the authentication failure, whatever the order of the
// stanzas and of the identities; and a passphrase that does not open its
// stanza is an authentication failure, anonymous flag or not.
func precedenceVectors(k *kit) {
	a, b := named(x25519, "age alice"), named(x25519, "age bob")
	rsaA := sshRSA("alice", 2048)
	// failing is the reader's age stanza, whose secret opens no ct.
	failing := func(g *gen) stanza { return ageWrapped(g.ageX25519(a, g.rand(16)), g.rand(16), nil) }
	const fails = "the reader's type 0x08 stanza, whose secret opens no ct"
	both := reader{ids: []*key{me}, age: []*key{a}}
	k.held("age_stanza_auth_over_not_recipient_anonymous", Authentication, "rule 14: anonymous; an X25519 stanza for bob (the X25519 identity's one candidate, which does not open), then "+fails+": authentication over not a recipient",
		aeadAESGCM, true, both, func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), failing(g)} })
	k.held("age_stanza_auth_over_not_recipient_anonymous_age_first", Authentication, "rule 14: anonymous; "+fails+", then an X25519 stanza for bob (the X25519 identity's one candidate, which does not open): authentication over not a recipient",
		aeadAESGCM, true, both, func(g *gen) []stanza { return []stanza{failing(g), g.hpke(bob(x25519))} })
	k.held("age_stanza_auth_over_not_recipient_anonymous_shared", Authentication, "rule 14: anonymous; an X25519 ephemeral key and type 0x03 stanzas for bob and carol (candidates of the X25519 identity that do not open), then "+fails,
		aeadAESGCM, true, both, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(bob(x25519)), failing(g), sh.to(carol(x25519))}
		})
	k.held("age_stanza_auth_over_not_recipient_anonymous_rsa", Authentication, "rule 14: anonymous; a type 0x06 stanza of L = 256 for nobody (the 2 048-bit ssh-rsa identity's candidate, which does not decrypt), then "+fails,
		aeadAESGCM, true, reader{ssh: []*sshKey{rsaA}, age: []*key{a}}, func(g *gen) []stanza { return []stanza{raw(0x06, g.rand(256)), failing(g)} })
	k.held("age_stanza_auth_over_not_recipient_two_age_identities", Authentication, "rule 14: anonymous; an X25519 stanza for bob, then "+fails+", read with an X25519 identity, bob's age identity (none of the age stanzas is its) and the reader's: authentication over not a recipient",
		aeadAESGCM, true, reader{ids: []*key{me}, age: []*key{b, a}}, func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), failing(g)} })
	k.held("age_stanza_auth_over_not_recipient", Authentication, "rule 14: with key identifiers; an X25519 stanza for bob (no stanza with the X25519 identity's identifier), then "+fails,
		aeadAESGCM, false, both, func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), failing(g)} })
	k.heldPrivate("age_stanza_auth_over_not_recipient_private", Authentication, "rule 14: a private envelope: an X25519 ephemeral key and bob's type 0x03 stanza (no stanza with the X25519 identity's tag), then "+fails,
		aeadAESGCM, both, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(bob(x25519)), failing(g)}
		})
	k.held("scrypt_wrong_passphrase_anonymous", Authentication, "rule 14: anonymous; a type 0x07 stanza sealed for another passphrase: authentication, anonymous flag or not",
		aeadAESGCM, true, reader{passphrase: kitPassphrase}, func(g *gen) []stanza {
			return []stanza{g.scryptStanza(kitPassphrase+".", 10, 10, scryptLabel)}
		})
}

// faultOrderVectors: FORMAT.md, "Several faults": the verdict of the
// first fault a reader meets. These vectors hold the two faults they
// order, and nothing else.
func faultOrderVectors(k *kit) {
	b := bob(x25519)
	pre := func(name, class, comment string, stanzas bool, f func(e *envelope)) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false)
			if stanzas {
				e.add(g.hpke(me))
			}
			e.payload = g.text()
			f(e)
			return open(class, "several faults: "+comment, e, me)
		})
	}
	pre("preamble_version_2_count_zero", Unsupported, "version 2 and a count of 0 (no stanza): the version comes first", false,
		func(e *envelope) { e.version = 2 })
	pre("preamble_version_2_anonymous_private", Unsupported, "version 2 and flags 0x05 (anonymous and private): the version comes first", true,
		func(e *envelope) { e.version, e.flags = 2, 0x05 })
	pre("preamble_flags_07_aead_0009_count_zero", Unsupported, "flags 0x07 (bit 1, anonymous and private), AEAD 0x0009 and a count of 0: the unknown flag bit comes first; stanza-less, payload sealed with AES-256-GCM", false,
		func(e *envelope) { e.flags, e.aead, e.sealAEAD = 0x07, 0x0009, aeadAESGCM })
	pre("preamble_anonymous_private_aead_0009", Unsupported, "flags 0x05 (anonymous and private) and AEAD 0x0009: the AEAD (unsupported) comes before bits 0 and 2 together (malformed); stanzas and payload sealed with AES-256-GCM", true,
		func(e *envelope) { e.flags, e.aead, e.sealAEAD = 0x05, 0x0009, aeadAESGCM })
	pre("preamble_aead_0009_count_zero", Unsupported, "AEAD 0x0009 and a count of 0: the AEAD (unsupported) comes before the count (malformed); payload sealed with AES-256-GCM", false,
		func(e *envelope) { e.aead, e.sealAEAD = 0x0009, aeadAESGCM })
	k.add("preamble_version_2_malformed_stanza", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(grow(g.hpke(me), 1))
		e.version = 2
		e.payload = g.text()
		return open(Unsupported, "several faults: version 2 and the reader's stanza with one byte too many (rule 4): the preamble comes first", e, me)
	})
	cut := func(name, class, comment string, f func(g *gen) *envelope, at func(enc *encoded) int) {
		k.add(name, func(g *gen) *Vector {
			e := f(g)
			e.payload = g.text()
			enc := e.encode()
			return result(class, "several faults: "+comment, enc.bytes[:at(enc)], nil, me)
		})
	}
	cut("truncated_inside_preamble_version_2", Truncated, "version 2 and the input ends after 28 bytes, inside the preamble: the version is checked once the 29 bytes are there",
		func(g *gen) *envelope {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			e.version = 2
			return e
		}, func(*encoded) int { return preambleSize - 1 })
	cut("preamble_count_10009_cut", Malformed, "a count of 10 009 and the input ends after the preamble: the count comes before the stanzas",
		func(g *gen) *envelope {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			e.count = 10009
			return e
		}, func(*encoded) int { return preambleSize })
	cut("truncated_after_malformed_stanza", Truncated, "a type 0x01 X25519 stanza of L = 2 (rule 4), then the input ends inside the reader's stanza: the header must be whole before rules 4 to 11",
		func(g *gen) *envelope {
			return g.newEnvelope(aeadAESGCM, false).add(raw(0x01, u16(kemX25519)), g.hpke(me))
		}, func(enc *encoded) int { return enc.stanzaEnd[1] - 10 })
	cut("truncated_inside_mac_after_malformed_stanza", Truncated, "the reader's stanza, then bob's with one byte too many (rule 4), and the input ends inside the header MAC: the MAC must be whole before rules 4 to 11",
		func(g *gen) *envelope {
			return g.newEnvelope(aeadAESGCM, false).add(g.hpke(me), grow(g.hpke(b), 1))
		}, func(enc *encoded) int { return enc.header + 16 })
	cut("not_recipient_payload_cut", NotRecipient, "stanzas for bob and carol only, and the input ends right after the header MAC: rule 13 comes before the payload",
		func(g *gen) *envelope {
			return g.newEnvelope(aeadAESGCM, false).add(g.hpke(b), g.hpke(carol(x25519)))
		}, func(enc *encoded) int { return enc.header + 32 })
	cut("auth_wrong_file_key_payload_cut", Authentication, "the reader's stanza opens to a file key that does not verify the header MAC, and the input ends right after the MAC: rule 14 comes before the payload",
		func(g *gen) *envelope {
			return g.newEnvelope(aeadAESGCM, false).add(g.hpkeWith(me, me, g.rand(32)))
		}, func(enc *encoded) int { return enc.header + 32 })
	// Rules 4 to 11 before rule 12, and rule 12 before rule 13.
	nobody := func(g *gen, n int) []stanza {
		var ss []stanza
		for range n {
			ss = append(ss, raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))))
		}
		return ss
	}
	k.stanzas("anonymous_trials_1001_malformed", Malformed, "several faults: anonymous; 1 000 X25519 stanzas for nobody, the reader's (1 001 trials, rule 12), then bob's with one byte too many (rule 4): rules 4 to 11 come first", true, []*key{me},
		func(g *gen) []stanza { return append(nobody(g, 1000), g.hpke(me), grow(g.hpke(b), 1)) })
	k.stanzas("anonymous_trials_1001_not_recipient", Unsupported, "several faults: anonymous; 1 001 X25519 stanzas for nobody (1 001 trials, rule 12) and none for the reader (rule 13): rule 12 comes first", true, []*key{me},
		func(g *gen) []stanza { return nobody(g, 1001) })
}

// emptyChunkVectors: rule 15: an empty last chunk after full ones is
// malformed only once it opens; one that does not open, and 16 bytes that
// open only as an empty middle chunk, are chunks that do not open.
func emptyChunkVectors(k *kit) {
	full := bytes.Repeat([]byte("0123456789abcdef"), chunkSize/16)
	add := func(name, comment string, chunks []chunk, tail func(g *gen) []byte) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			e.chunks = chunks
			body := e.encode().bytes
			if tail != nil {
				body = append(body, tail(g)...)
			}
			return result(Authentication, "rule 15: "+comment, body, nil, me)
		})
	}
	add("payload_empty_last_chunk_forged", "a full chunk sealed as a middle one, then 16 random bytes in the place of an empty last chunk: an empty last chunk that does not open",
		[]chunk{{pt: full}}, func(g *gen) []byte { return g.rand(16) })
	add("payload_empty_middle_chunk_at_end", "a full chunk sealed as a middle one, then an empty chunk sealed as a middle one (flag 0x00): 16 bytes that open only as an empty middle chunk",
		[]chunk{{pt: full}, {pt: []byte{}}}, nil)
}

// armorCRVectors: FORMAT.md, "Text forms": a CR that ends the input, CRs
// in the white space around the armor, how the white space is counted,
// and a padded line of 64 characters.
func armorCRVectors(k *kit) {
	const begin, end = "-----BEGIN FANSEAL ENVELOPE-----", "-----END FANSEAL ENVELOPE-----"
	text := func(name, class, comment string, f func(env []byte) string) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			// 302 bytes: a 472-byte envelope, whose base64 is 9 lines of
			// 64 characters and one of 56.
			e.payload = bytes.Repeat(g.text(), 302/len(g.text())+1)[:302]
			v := result(class, "armor: "+comment, []byte(f(e.encode().bytes)), e.payload, me)
			v.Armored = true
			return v
		})
	}
	good := func(env []byte) string { return armor(env, 64, "\n") }
	lines := func(env []byte) []string { return strings.Split(good(env), "\n") }
	// upTo is the first n lines of the armor, each ended by LF but the
	// last.
	upTo := func(env []byte, n int) string { return strings.Join(lines(env)[:n], "\n") }

	k.add("armor_empty_input", func(g *gen) *Vector {
		v := result(Truncated, "armor: empty input, for a decoder told that its input is armor: cut before its begin line (and, as binary, rule 3)", []byte{}, nil, me)
		v.Armored = true
		return v
	})

	// One CR that ends the input is a line end cut before its LF.
	text("armor_cr_after_begin_line", Truncated, "the input ends with the begin line and a CR: the begin line, cut after it",
		func(env []byte) string { return upTo(env, 1) + "\r" })
	text("armor_cr_after_full_line", Truncated, "the input ends with the third line of base64, of 64 characters, and a CR: cut after a full line",
		func(env []byte) string { return upTo(env, 4) + "\r" })
	text("armor_cr_after_short_line", Truncated, "the input ends with the last line of base64, of 56 characters, and a CR: the last line, with no end line after it",
		func(env []byte) string { return upTo(env, 11) + "\r" })
	text("armor_cr_after_cut_line", Malformed, "the input ends with 30 characters of the third line of base64 and a CR: a line of a wrong width",
		func(env []byte) string { return upTo(env, 3) + "\n" + lines(env)[3][:30] + "\r" })
	text("armor_cr_after_cut_end_line", Malformed, "the input ends with the first 16 bytes of the end line and a CR: a part of the end line",
		func(env []byte) string { return upTo(env, 11) + "\n" + end[:16] + "\r" })
	text("armor_cr_cr_after_end_line", Malformed, "the end line followed by two CRs, at the end of the input: judged without the last, the line is not the end line",
		func(env []byte) string { return upTo(env, 12) + "\r\r" })
	if len(strings.Split(armor(make([]byte, 472), 64, "\n"), "\n")) != 13 || len(strings.Split(armor(make([]byte, 472), 64, "\n"), "\n")[10]) != 56 {
		panic("armorCRVectors: the armor of 472 bytes is not 9 full lines and one of 56")
	}

	// CRs in the white space around the armor.
	text("armor_crs_in_white_space_before", Success, "lines of white space holding CRs anywhere (\\r space \\r LF, space \\r tab \\r \\r LF, \\r LF) before the begin line",
		func(env []byte) string { return "\r \r\n \r\t\r\r\n\r\n" + good(env) })
	text("armor_cr_before_begin_line", Malformed, "a CR before the begin line: a CR is no line end, so the first line is a CR and the begin line, not the begin line",
		func(env []byte) string { return "\r" + good(env) })
	text("armor_space_cr_before_begin_line", Malformed, "a space and a CR before the begin line: one line, which is not the begin line",
		func(env []byte) string { return " \r" + good(env) })
	text("armor_crs_in_white_space_after", Success, "white space holding CRs anywhere (\\r \\r LF space \\r space LF \\r) after the end line and its LF",
		func(env []byte) string { return good(env) + "\r\r\n \r \n\r" })
	text("armor_crs_after_crlf_end_line", Success, "the end line ended by CRLF, then two CRs at the end of the input: white space after the end line",
		func(env []byte) string { return upTo(env, 12) + "\r\n\r\r" })
	text("armor_512_cr_cr_lf_lines_before", Success, "512 lines of CR CR LF before the begin line: each counts 2 bytes (its first CR and its LF), 1 024 in all, the most allowed",
		func(env []byte) string { return strings.Repeat("\r\r\n", 512) + good(env) })
	text("armor_513_cr_cr_lf_lines_before", Malformed, "513 lines of CR CR LF before the begin line: 1 026 bytes counted, over 1 024",
		func(env []byte) string { return strings.Repeat("\r\r\n", 513) + good(env) })

	// After the end line and its line end, every byte counts.
	text("armor_1023_bytes_after_crlf", Success, "511 CRLFs and a LF after the end line and its LF: 1 023 bytes, every CR counted, the most allowed",
		func(env []byte) string { return good(env) + strings.Repeat("\r\n", 511) + "\n" })
	text("armor_1024_bytes_after_crlf", Malformed, "512 CRLFs after the end line and its LF: 1 024 bytes, every CR counted",
		func(env []byte) string { return good(env) + strings.Repeat("\r\n", 512) })
	text("armor_1023_bytes_after_nbsp", Success, "511 no-break spaces (U+00A0, 2 bytes each) and a space after the end line and its LF: 1 023 bytes, the most allowed",
		func(env []byte) string { return good(env) + strings.Repeat("\u00a0", 511) + " " })
	text("armor_1024_bytes_after_nbsp", Malformed, "512 no-break spaces (U+00A0, 2 bytes each) after the end line and its LF: 1 024 bytes",
		func(env []byte) string { return good(env) + strings.Repeat("\u00a0", 512) })
	text("armor_1023_spaces_after_crlf_end_line", Success, "the end line ended by CRLF, then 1 023 spaces: the end line's own CR and LF are not counted",
		func(env []byte) string { return upTo(env, 12) + "\r\n" + strings.Repeat(" ", 1023) })
	text("armor_1024_spaces_after_crlf_end_line", Malformed, "the end line ended by CRLF, then 1 024 spaces",
		func(env []byte) string { return upTo(env, 12) + "\r\n" + strings.Repeat(" ", 1024) })

	// A line of 64 characters that ends in = is the last line of base64.
	k.add("armor_padded_full_last_line", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
		// 479 bytes (48 × 9 + 47): the last line is 64 characters, the
		// last of them =.
		e.payload = bytes.Repeat([]byte("y"), 479-122-32-16)
		env := e.encode().bytes
		s := armor(env, 64, "\n")
		if len(env) != 479 || !strings.HasSuffix(s, "=\n"+end+"\n") {
			panic("armor_padded_full_last_line")
		}
		v := result(Success, "armor: the last line of base64 holds 64 characters, the last of them = (47 bytes)", []byte(s), e.payload, me)
		v.Armored = true
		return v
	})
	text("armor_padded_full_line_then_line", Malformed, "the first line of base64 is the 64 characters of the envelope's first 47 bytes (ending in =), and the base64 of the rest follows on further lines: a line after the last line",
		func(env []byte) string {
			first := base64.StdEncoding.EncodeToString(env[:47])
			if len(first) != 64 || !strings.HasSuffix(first, "=") {
				panic("armor_padded_full_line_then_line")
			}
			rest := strings.SplitN(armor(env[47:], 64, "\n"), "\n", 2)[1]
			return begin + "\n" + first + "\n" + rest
		})
}

// sshTextVectors: FORMAT.md, "SSH keys" and "ecdsa-sha2-nistp256 keys":
// SSH key lines that a reader refuses.
func sshTextVectors(k *kit) {
	recipient := func(name, comment, line string) {
		k.add(name, func(g *gen) *Vector {
			return &Vector{Expect: InvalidKey, Comments: []string{comment}, Recipients: []string{line}}
		})
	}
	b64 := base64.StdEncoding.EncodeToString
	ed := sshEd25519("alice")
	ec := sshECDSA(alice(p256))
	rsaA := sshRSA("alice", 2048)
	n, e := rsaA.rsa.N, big.NewInt(int64(rsaA.rsa.E))

	// An ssh-rsa key whose mpints have more leading zero bytes than they
	// need is its minimal encoding: the same ssh_key, H(ssh_key) and
	// identifier.
	k.add("ssh_rsa_identity_nonminimal_mpints", func(g *gen) *Vector {
		p := rsaA.rsa
		e := big.NewInt(int64(p.E))
		long := func(x *big.Int, zeros int) []byte { return sshString(cat(make([]byte, zeros), x.Bytes())) }
		pub := cat(sshString([]byte("ssh-rsa")), long(e, 1), long(p.N, 2))
		priv := cat(long(p.N, 2), long(e, 1), sshMpint(p.D), sshMpint(new(big.Int).ModInverse(p.Primes[1], p.Primes[0])), sshMpint(p.Primes[0]), sshMpint(p.Primes[1]))
		s := &sshKey{typ: "ssh-rsa", file: openSSHFile("ssh-rsa", pub, priv, g.rand(4))}
		env := g.newEnvelope(aeadAESGCM, false).add(g.hpke(bob(x25519)), g.rsaStanza(rsaA, nil, nil))
		env.payload = g.text()
		return reader{ssh: []*sshKey{s}}.vector(Success, "SSH keys: the reader's ssh-rsa private key file spells e with one leading zero byte and n with two more than they need, in its public key and its private fields; the envelope's type 0x06 stanza has the ssh_key_id and label of the minimal encoding", env)
	})
	// A byte after the key's last field.
	recipient("ssh_ed25519_trailing_byte", "an ssh-ed25519 key with a zero byte after its last field", "ssh-ed25519 "+b64(cat(ed.wire, []byte{0})))
	recipient("ssh_rsa_trailing_byte", "an ssh-rsa key of 2 048 bits with a zero byte after n", "ssh-rsa "+b64(cat(rsaA.wire, []byte{0})))
	recipient("ssh_ecdsa_p256_trailing_byte", "an ecdsa-sha2-nistp256 key with a zero byte after Q", "ecdsa-sha2-nistp256 "+b64(cat(ec.wire, []byte{0})))

	// Negative mpints.
	nBytes := n.Bytes() // 256 bytes, the first with its top bit set
	if nBytes[0]&0x80 == 0 {
		panic("sshTextVectors: the modulus's first byte has its top bit clear")
	}
	rsaRaw := func(e, n []byte) []byte { return cat(sshString([]byte("ssh-rsa")), sshString(e), sshString(n)) }
	recipient("ssh_rsa_negative_exponent", "an ssh-rsa key of 2 048 bits whose e is the mpint fe ff ff (negative: its first byte has the top bit set)",
		"ssh-rsa "+b64(rsaRaw([]byte{0xfe, 0xff, 0xff}, cat([]byte{0}, nBytes))))
	recipient("ssh_rsa_negative_modulus", "an ssh-rsa key whose n is the 2 048-bit modulus without its leading zero byte: a negative mpint",
		"ssh-rsa "+b64(rsaRaw(e.Bytes(), nBytes)))

	// Q must be the uncompressed point.
	q := alice(p256).pk
	ecdsaLine := func(q []byte) string {
		return "ecdsa-sha2-nistp256 " + b64(cat(sshString([]byte("ecdsa-sha2-nistp256")), sshString([]byte("nistp256")), sshString(q)))
	}
	recipient("ssh_ecdsa_p256_compressed", "an ecdsa-sha2-nistp256 key whose Q is the compressed point (0x02 or 0x03 and X, 33 bytes) of a P-256 key",
		ecdsaLine(cat([]byte{2 + q[64]&1}, q[1:33])))
	recipient("ssh_ecdsa_p256_hybrid", "an ecdsa-sha2-nistp256 key whose Q is the hybrid encoding (0x06 or 0x07, X and Y) of a P-256 point",
		ecdsaLine(cat([]byte{6 + q[64]&1}, q[1:])))
	recipient("ssh_ecdsa_p256_infinity", "an ecdsa-sha2-nistp256 key whose Q is the point at infinity (the one byte 0x00)", ecdsaLine([]byte{0}))

	// The line: standard base64 with its padding, fields separated by
	// white space, the type word first.
	line := ec.line("")
	if !strings.HasSuffix(line, "=") || strings.HasSuffix(line, "==") {
		panic("sshTextVectors: the ecdsa key's base64 does not end in one =")
	}
	recipient("ssh_ecdsa_p256_base64_no_padding", "an ecdsa-sha2-nistp256 line whose base64 (of 104 bytes) lacks its = padding", strings.TrimSuffix(line, "="))
	recipient("ssh_ecdsa_p256_base64_extra_padding", "an ecdsa-sha2-nistp256 line whose base64 has one = more than its padding", line+"=")
	recipient("ssh_ed25519_no_separator", "an ssh-ed25519 line with no white space between the type word and the base64", "ssh-ed25519"+b64(ed.wire))
	recipient("ssh_ed25519_white_space_first", "an ssh-ed25519 line that starts with a space before the type word (the text as it is, not a line of a file)", " "+ed.line(""))
}

// channelSenderVectors: FORMAT.md, "Type 0x04": the sender's key
// identifier is that of its public key as a stanza to it carries it:
// ssh_key_id for an ssh-ed25519 key, whose pk is its X25519 form.
func channelSenderVectors(k *kit) {
	s := sshEd25519("bob")
	add := func(name, class, comment string, from *key) {
		k.add(name, func(g *gen) *Vector {
			c := g.channel(from, me, 0)
			e := g.newEnvelope(aeadAESGCM, false).add(c.stanza())
			e.payload = g.text()
			v := open(class, comment, e)
			v.Keyring, v.Peer = me.identity(), s.line("")
			return v
		})
	}
	add("channel_ssh_ed25519_sender", Success, "a channel stanza from bob's ssh-ed25519 key (pk its X25519 form, sender identifier its ssh_key_id) to alice; alice's keyring has the ssh-ed25519 key as its peer", s.x)
	plain := keyPair(x25519, s.x.sk)
	add("channel_ssh_ed25519_sender_x25519_key_id", NotRecipient, "rule 13: a channel stanza from the X25519 form of bob's ssh-ed25519 key, under the X25519 key identifier of that form; alice's keyring has the ssh-ed25519 key as its peer, whose identifier is its ssh_key_id: no peer with the sender's identifier", plain)
}

// settledPoints names, for each point that FORMAT.md settled, the vectors
// that pin it and their outcomes; checkCoverage requires every one.
var settledPoints = []struct {
	point   string
	vectors map[string]string
}{
	{"the stanza type registry", map[string]string{
		"skip_unassigned_types": Success, "skip_unassigned_types_anonymous": Success, "skip_unassigned_types_private": Success,
		"skip_unassigned_type_flipped": Authentication, "skip_unassigned_type_flipped_anonymous": Authentication, "skip_unassigned_type_flipped_private": Authentication,
		"skip_type_05_draft_ssh_rsa": NotRecipient, "skip_type_05_draft_ssh_rsa_anonymous": NotRecipient, "skip_type_05_draft_ssh_rsa_private": NotRecipient,
		"ssh_rsa_draft_scrypt_stanza": Malformed, "scrypt_draft_age_stanza": Malformed,
	}},
	{"type 0x08 verdicts", map[string]string{
		"age_stanza_secret_opens_later_ct": Success, "age_stanza_secret_opens_earlier_ct": Success,
		"age_stanza_malformed_x25519_before_mine": Success, "age_stanza_malformed_x25519_after_mine": Success,
		"age_stanza_malformed_x25519_before_mine_anonymous": Success,
		"age_stanza_malformed_x25519":                       Authentication,
		"age_stanza_not_recipient_anonymous":                NotRecipient, "age_stanza_not_recipient_private": NotRecipient,
		"age_stanza_wrong_secret_anonymous": Authentication, "age_stanza_wrong_secret_private": Authentication,
	}},
	{"rule 12 per envelope kind", map[string]string{
		"age_stanza_trials_1000_identified_x25519": Success, "age_stanza_private_trials_1000_x25519": Success,
		"ssh_rsa_trials_identified_201": Success, "ssh_rsa_private_trials_other_size": Success,
	}},
	{"ssh-rsa candidates of L = k only", map[string]string{
		"ssh_rsa_anonymous_other_size_only": NotRecipient, "ssh_rsa_private_other_size_only": NotRecipient, "ssh_rsa_private_other_key": NotRecipient,
	}},
	{"authentication over not a recipient", map[string]string{
		"age_stanza_auth_over_not_recipient_anonymous": Authentication, "age_stanza_auth_over_not_recipient_anonymous_age_first": Authentication,
		"age_stanza_auth_over_not_recipient_anonymous_shared": Authentication, "age_stanza_auth_over_not_recipient_anonymous_rsa": Authentication,
		"age_stanza_auth_over_not_recipient_two_age_identities": Authentication, "age_stanza_auth_over_not_recipient": Authentication,
		"age_stanza_auth_over_not_recipient_private": Authentication, "scrypt_wrong_passphrase_anonymous": Authentication,
	}},
	{"SSH keys: mpints, the line, P-256 points", map[string]string{
		"ssh_rsa_identity_nonminimal_mpints": Success,
		"ssh_ed25519_trailing_byte":          InvalidKey, "ssh_rsa_trailing_byte": InvalidKey, "ssh_ecdsa_p256_trailing_byte": InvalidKey,
		"ssh_rsa_negative_exponent": InvalidKey, "ssh_rsa_negative_modulus": InvalidKey,
		"ssh_ecdsa_p256_compressed": InvalidKey, "ssh_ecdsa_p256_hybrid": InvalidKey, "ssh_ecdsa_p256_infinity": InvalidKey,
		"ssh_ecdsa_p256_base64_no_padding": InvalidKey, "ssh_ecdsa_p256_base64_extra_padding": InvalidKey,
		"ssh_ed25519_no_separator": InvalidKey, "ssh_ed25519_white_space_first": InvalidKey,
	}},
	{"the channel's sender identifier", map[string]string{
		"channel_ssh_ed25519_sender": Success, "channel_ssh_ed25519_sender_x25519_key_id": NotRecipient,
	}},
	{"several faults", map[string]string{
		"preamble_version_2_count_zero": Unsupported, "preamble_version_2_anonymous_private": Unsupported,
		"preamble_flags_07_aead_0009_count_zero": Unsupported, "preamble_anonymous_private_aead_0009": Unsupported,
		"preamble_aead_0009_count_zero": Unsupported, "preamble_version_2_malformed_stanza": Unsupported,
		"truncated_inside_preamble_version_2": Truncated, "preamble_count_10009_cut": Malformed,
		"truncated_after_malformed_stanza": Truncated, "truncated_inside_mac_after_malformed_stanza": Truncated,
		"anonymous_trials_1001_malformed": Malformed, "anonymous_trials_1001_not_recipient": Unsupported,
		"not_recipient_payload_cut": NotRecipient, "auth_wrong_file_key_payload_cut": Authentication,
	}},
	{"an empty last chunk that does not open", map[string]string{
		"payload_empty_last_chunk_forged": Authentication, "payload_empty_middle_chunk_at_end": Authentication,
	}},
	{"armor: CRs, byte counts, padded full lines", map[string]string{
		"armor_empty_input":         Truncated,
		"armor_cr_after_begin_line": Truncated, "armor_cr_after_full_line": Truncated, "armor_cr_after_short_line": Truncated,
		"armor_cr_after_cut_line": Malformed, "armor_cr_after_cut_end_line": Malformed, "armor_cr_cr_after_end_line": Malformed,
		"armor_crs_in_white_space_before": Success, "armor_cr_before_begin_line": Malformed, "armor_space_cr_before_begin_line": Malformed,
		"armor_crs_in_white_space_after": Success, "armor_crs_after_crlf_end_line": Success,
		"armor_512_cr_cr_lf_lines_before": Success, "armor_513_cr_cr_lf_lines_before": Malformed,
		"armor_1023_bytes_after_crlf": Success, "armor_1024_bytes_after_crlf": Malformed,
		"armor_1023_bytes_after_nbsp": Success, "armor_1024_bytes_after_nbsp": Malformed,
		"armor_1023_spaces_after_crlf_end_line": Success, "armor_1024_spaces_after_crlf_end_line": Malformed,
		"armor_padded_full_last_line": Success, "armor_padded_full_line_then_line": Malformed,
	}},
}
