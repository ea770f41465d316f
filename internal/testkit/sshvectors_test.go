package testkit

// The vectors of the stanza types and keys that FORMAT.md's "SSH keys,
// passphrases and age stanzas" defines: ssh-ed25519 recipients,
// ecdsa-sha2-nistp256 keys, type 0x06 (ssh-rsa), type 0x07 (scrypt) and
// type 0x08 (age stanza), rules 11a to 11d and the trials of rule 12, and
// SSH public key lines. Type 0x08 vectors hold age X25519 identities
// (age-identity): a runner opens them through age's X25519 stanza type,
// which the library runner writes out from age's spec and the command
// line's runner gets from age's own library.

import (
	"bytes"
	"encoding/base64"
	"math/big"
	"strconv"
	"strings"
)

// A reader is what a vector's reader holds.
type reader struct {
	ids        []*key
	ssh        []*sshKey
	passphrase string
	age        []*key // age X25519 identities
}

// vector returns the vector of e read by r.
func (r reader) vector(class, comment string, e *envelope) *Vector {
	v := open(class, comment, e, r.ids...)
	for _, s := range r.ssh {
		v.SSHIdentities = append(v.SSHIdentities, s.file)
	}
	v.Passphrase = r.passphrase
	for _, a := range r.age {
		v.AgeIdentities = append(v.AgeIdentities, ageIdentity(a))
	}
	return v
}

// held adds a vector of an envelope of AEAD aead of the stanzas f makes,
// read by r.
func (k *kit) held(name, class, comment string, aead uint16, anon bool, r reader, f func(g *gen) []stanza) {
	k.add(name, func(g *gen) *Vector {
		e := g.newEnvelope(aead, anon).add(f(g)...)
		e.payload = g.text()
		return r.vector(class, comment, e)
	})
}

// heldPrivate adds a vector of a private envelope of AEAD aead of the
// stanzas f makes, read by r.
func (k *kit) heldPrivate(name, class, comment string, aead uint16, r reader, f func(g *gen) []stanza) {
	k.add(name, func(g *gen) *Vector {
		e := g.newPrivate(aead).add(f(g)...)
		e.payload = g.text()
		return r.vector(class, comment, e)
	})
}

// sshVectors: the vectors of the new types.
func sshVectors(k *kit) {
	sshEd25519Vectors(k)
	sshECDSAVectors(k)
	sshRSAVectors(k)
	scryptVectors(k)
	ageStanzaVectors(k)
	sshKeyTextVectors(k)
}

func sshEd25519Vectors(k *kit) {
	a, b := sshEd25519("alice"), sshEd25519("bob")
	ra := reader{ssh: []*sshKey{a}}
	for _, aead := range aeads {
		for _, anon := range []bool{false, true} {
			suffix, how := aeadName(aead), "with key identifiers"
			if anon {
				suffix, how = suffix+"_anonymous", "anonymous"
			}
			k.held("ssh_ed25519_success_"+suffix, Success, "an X25519 stanza for bob, then the reader's ssh-ed25519 stanza (type 0x01 of suite X25519, ssh_key_id, info fanseal/v1 ssh-ed25519 || H(ssh_key)), "+aeadName(aead)+", "+how,
				aead, anon, ra, func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), g.sshEd25519Stanza(a)} })
			k.held("ssh_ed25519_shared_"+suffix, Success, "one X25519 type 0x02 ephemeral key shared by the type 0x03 stanzas of bob's X25519 key and the reader's ssh-ed25519 key, "+aeadName(aead)+", "+how,
				aead, anon, ra, func(g *gen) []stanza {
					sh := g.shared(x25519)
					return []stanza{sh.ephemeral(), sh.to(bob(x25519)), sh.sshTo(a)}
				})
		}
	}
	// The X25519 key that the ssh-ed25519 key also is, in its plain form.
	plain := keyPair(x25519, a.x.sk)
	// In a private envelope an ssh-ed25519 stanza's tag is the Export of
	// its own context, whose info is the ssh-ed25519 one.
	for _, aead := range aeads {
		k.heldPrivate("ssh_ed25519_private_"+aeadName(aead), Success, "a private envelope: an X25519 ephemeral key and type 0x03 stanzas with tags for bob's X25519 key, the reader's ssh-ed25519 key (tag and ct of the context with info fanseal/v1 ssh-ed25519 || H(ssh_key)) and carol's X25519 key, "+aeadName(aead),
			aead, ra, func(g *gen) []stanza {
				sh := g.shared(x25519)
				return []stanza{sh.ephemeral(), sh.to(bob(x25519)), sh.sshTo(a), sh.to(carol(x25519))}
			})
	}
	k.heldPrivate("ssh_ed25519_private_read_as_x25519", NotRecipient, "rule 13: a private envelope: the reader's ssh-ed25519 stanza, read with the plain X25519 identity of the same scalar, whose context (info fanseal/v1 file key) gives another tag",
		aeadAESGCM, reader{ids: []*key{plain}}, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(bob(x25519)), sh.sshTo(a)}
		})
	k.heldPrivate("ssh_ed25519_private_plain_x25519_stanza", NotRecipient, "rule 13: a private envelope: a plain X25519 stanza (info fanseal/v1 file key) to the X25519 key of the reader's ssh-ed25519 key: the ssh-ed25519 identity's context gives another tag",
		aeadAESGCM, ra, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(plain)}
		})
	k.heldPrivate("ssh_ed25519_private_and_x25519_forms", Success, "a private envelope with a stanza for each form of one scalar, the plain X25519 key's and the ssh-ed25519 key's: two tags (rule 10 does not apply); the reader holds the ssh-ed25519 identity",
		aeadAESGCM, ra, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(plain), sh.sshTo(a)}
		})
	env := func(name, class, comment string, anon bool, r reader, f func(g *gen) []stanza) {
		k.held(name, class, comment, aeadAESGCM, anon, r, f)
	}
	env("ssh_ed25519_not_recipient", NotRecipient, "rule 13: an ssh-ed25519 stanza for bob's SSH key only (another ssh_key_id: no key agreement)", false, ra,
		func(g *gen) []stanza { return []stanza{g.sshEd25519Stanza(b)} })
	env("ssh_ed25519_not_recipient_anonymous", NotRecipient, "rule 13: anonymous; an ssh-ed25519 stanza for bob's SSH key only (one trial, which does not open)", true, ra,
		func(g *gen) []stanza { return []stanza{g.sshEd25519Stanza(b)} })
	env("ssh_ed25519_plain_x25519_stanza", NotRecipient, "rule 13: a plain X25519 stanza (X25519 key identifier, info fanseal/v1 file key) to the X25519 key of the reader's ssh-ed25519 key: its identifier is not the reader's ssh_key_id", false, ra,
		func(g *gen) []stanza { return []stanza{g.hpke(plain)} })
	env("ssh_ed25519_plain_x25519_stanza_anonymous", NotRecipient, "rule 13: anonymous; a plain X25519 stanza (info fanseal/v1 file key) to the X25519 key of the reader's ssh-ed25519 key: the ssh-ed25519 identity opens with its own info, and fails", true, ra,
		func(g *gen) []stanza { return []stanza{g.hpke(plain)} })
	env("ssh_ed25519_read_as_x25519", NotRecipient, "rule 13: the reader's ssh-ed25519 stanza, read with the plain X25519 identity of the same scalar: its X25519 key identifier is not the stanza's ssh_key_id", false, reader{ids: []*key{plain}},
		func(g *gen) []stanza { return []stanza{g.sshEd25519Stanza(a)} })
	env("ssh_ed25519_read_as_x25519_anonymous", NotRecipient, "rule 13: anonymous; an ssh-ed25519 stanza, read with the plain X25519 identity of the same scalar, whose info is fanseal/v1 file key", true, reader{ids: []*key{plain}},
		func(g *gen) []stanza { return []stanza{g.sshEd25519Stanza(a)} })
	env("ssh_ed25519_wrong_info", Authentication, "rule 14: a stanza with the reader's ssh_key_id sealed to its X25519 key with info fanseal/v1 file key", false, ra,
		func(g *gen) []stanza {
			s := g.hpke(plain)
			return []stanza{edit(s, func(body []byte) []byte { return cat(body[:2], a.id, body[2+keyIDSize:]) })}
		})
	env("ssh_ed25519_flipped_ciphertext", Authentication, "rule 14: the reader's ssh-ed25519 stanza with a bit flipped in its ciphertext", false, ra,
		func(g *gen) []stanza { return []stanza{flipLast(g.sshEd25519Stanza(a))} })
	env("ssh_ed25519_stanza_short", Malformed, "rule 4: the reader's ssh-ed25519 stanza with one byte too few", false, ra,
		func(g *gen) []stanza { return []stanza{grow(g.sshEd25519Stanza(a), -1)} })
	env("ssh_ed25519_duplicate", Malformed, "rule 10: two ssh-ed25519 stanzas with the reader's ssh_key_id (suite X25519)", false, ra,
		func(g *gen) []stanza { return []stanza{g.sshEd25519Stanza(a), g.sshEd25519Stanza(a)} })
	env("ssh_ed25519_and_x25519_forms", Success, "the reader holds the ssh-ed25519 identity and the plain X25519 identity of one scalar; the envelope has a stanza for each form, two identifiers (rule 10 does not apply)", false,
		reader{ssh: []*sshKey{a}, ids: []*key{plain}},
		func(g *gen) []stanza { return []stanza{g.hpke(plain), g.sshEd25519Stanza(a)} })
	env("ssh_ed25519_mixed_pq_ssh_reader", Malformed, "rule 11: an ML-KEM-768+X25519 stanza for bob, then the reader's ssh-ed25519 stanza: refused whichever key opens", false, ra,
		func(g *gen) []stanza { return []stanza{g.hpke(bob(mlkem)), g.sshEd25519Stanza(a)} })
	env("ssh_ed25519_mixed_pq", Malformed, "rule 11: the reader's ML-KEM-768+X25519 stanza, then an ssh-ed25519 stanza (an X25519 one, classical)", false, reader{ids: []*key{alice(mlkem)}},
		func(g *gen) []stanza { return []stanza{g.hpke(alice(mlkem)), g.sshEd25519Stanza(b)} })
	// Rule 12: an ssh-ed25519 identity is one of suite X25519, and it and
	// the X25519 identity of the same scalar are two.
	nobody := func(g *gen, n int) []stanza {
		var ss []stanza
		for range n {
			ss = append(ss, raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))))
		}
		return ss
	}
	env("ssh_ed25519_trials_1000", Success, "rule 12: anonymous; 999 X25519 stanzas for nobody, then the reader's ssh-ed25519 stanza: 1 000 trials", true, ra,
		func(g *gen) []stanza { return append(nobody(g, 999), g.sshEd25519Stanza(a)) })
	env("ssh_ed25519_trials_1001", Unsupported, "rule 12: anonymous; 1 000 X25519 stanzas for nobody, then the reader's ssh-ed25519 stanza: 1 001 trials", true, ra,
		func(g *gen) []stanza { return append(nobody(g, 1000), g.sshEd25519Stanza(a)) })
	env("ssh_ed25519_trials_same_identity_twice", Success, "rule 12: anonymous; 600 X25519 stanzas for nobody and the reader's ssh-ed25519 stanza, read with the ssh-ed25519 identity given twice: one public key, 601 trials", true,
		reader{ssh: []*sshKey{a, a}},
		func(g *gen) []stanza { return append(nobody(g, 600), g.sshEd25519Stanza(a)) })
	env("ssh_ed25519_trials_both_forms", Unsupported, "rule 12: anonymous; 500 X25519 stanzas for nobody and the reader's ssh-ed25519 stanza, read with the ssh-ed25519 identity and the X25519 identity of the same scalar: two identities, 1 002 trials", true,
		reader{ssh: []*sshKey{a}, ids: []*key{plain}},
		func(g *gen) []stanza { return append(nobody(g, 500), g.sshEd25519Stanza(a)) })
}

func sshECDSAVectors(k *kit) {
	a := sshECDSA(alice(p256))
	ra := reader{ssh: []*sshKey{a}}
	for _, anon := range []bool{false, true} {
		name, how := "ssh_ecdsa_p256_success", "with key identifiers"
		if anon {
			name, how = name+"_anonymous", "anonymous"
		}
		k.held(name, Success, "a P-256 stanza for bob, then a plain P-256 stanza (P-256 key identifier, info fanseal/v1 file key) for the reader's ecdsa-sha2-nistp256 key, "+how,
			aeadAESGCM, anon, ra, func(g *gen) []stanza { return []stanza{g.hpke(bob(p256)), g.hpke(alice(p256))} })
	}
	// Rule 12 counts distinct public keys, and an ecdsa-sha2-nistp256 key
	// is the P-256 key of its scalar (no SSH binding): it and the P-256
	// identity of that scalar are one key.
	nobody := func(g *gen, n int) []stanza {
		var ss []stanza
		for range n {
			ss = append(ss, raw(0x01, cat(u16(kemP256), g.rand(p256.nenc+ctSize))))
		}
		return ss
	}
	k.held("ssh_ecdsa_p256_trials_both_forms", Success, "rule 12: anonymous; 999 P-256 stanzas for nobody, then the reader's, read with its ecdsa-sha2-nistp256 key and the P-256 identity of the same scalar: one public key, 1 000 trials",
		aeadAESGCM, true, reader{ssh: []*sshKey{a}, ids: []*key{alice(p256)}},
		func(g *gen) []stanza { return append(nobody(g, 999), g.hpke(alice(p256))) })
	k.held("ssh_ecdsa_p256_not_recipient", NotRecipient, "rule 13: a P-256 stanza for bob only, read with an ecdsa-sha2-nistp256 key", aeadAESGCM, false, ra,
		func(g *gen) []stanza { return []stanza{g.hpke(bob(p256))} })
	k.held("ssh_ecdsa_p256_ssh_key_id", NotRecipient, "rule 13: a P-256 stanza sealed to the reader's key under its ssh_key_id: an ecdsa-sha2-nistp256 key has the P-256 key identifier", aeadAESGCM, false, ra,
		func(g *gen) []stanza {
			return []stanza{edit(g.hpke(alice(p256)), func(body []byte) []byte { return cat(body[:2], a.id, body[2+keyIDSize:]) })}
		})
}

func sshRSAVectors(k *kit) {
	a, b := sshRSA("alice", 2048), sshRSA("bob", 2048)
	ra := reader{ssh: []*sshKey{a}}
	for _, aead := range aeads {
		for _, anon := range []bool{false, true} {
			suffix, how := aeadName(aead), "with a key identifier"
			if anon {
				suffix, how = suffix+"_anonymous", "anonymous"
			}
			k.held("ssh_rsa_success_"+suffix, Success, "an X25519 stanza for bob, then the reader's type 0x06 stanza for its 2 048-bit ssh-rsa key, "+aeadName(aead)+", "+how,
				aead, anon, ra, func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), g.rsaStanza(a, nil, nil)} })
		}
	}
	// In a private envelope a type 0x06 stanza has no key identifier (L =
	// k), beside the shared stanzas.
	for _, aead := range aeads {
		k.heldPrivate("ssh_rsa_private_"+aeadName(aead), Success, "a private envelope: an X25519 ephemeral key and bob's type 0x03 stanza with its tag, then the reader's type 0x06 stanza without key identifier (L = 256), "+aeadName(aead),
			aead, ra, func(g *gen) []stanza {
				sh := g.shared(x25519)
				return []stanza{sh.ephemeral(), sh.to(bob(x25519)), g.rsaStanza(a, nil, nil)}
			})
	}
	k.heldPrivate("ssh_rsa_private_not_recipient", NotRecipient, "rule 13: a private envelope: an X25519 ephemeral key and bob's type 0x03 stanza, then a type 0x06 stanza without key identifier for bob's ssh-rsa key: the reader's one trial does not open, and nothing says the stanza was its",
		aeadAESGCM, ra, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(bob(x25519)), g.rsaStanza(b, nil, nil)}
		})
	k.heldPrivate("ssh_rsa_private_key_id_4096", Malformed, "rule 11b: a private envelope: an X25519 ephemeral key and the reader's X25519 stanza, then a type 0x06 stanza of a key identifier and a 512-byte ciphertext (L = 520, above 512: no key identifier in a private envelope)",
		aeadAESGCM, reader{ids: []*key{me}}, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), raw(0x06, cat(b.id, g.rand(512)))}
		})
	rsaNobody := func(g *gen, n int) []stanza {
		var ss []stanza
		for range n {
			ss = append(ss, raw(0x06, g.rand(256)))
		}
		return ss
	}
	k.heldPrivate("ssh_rsa_private_trials_1000", Success, "rule 12: a private envelope: 124 type 0x06 stanzas of L = 256 for nobody, then the reader's: 125 × 8 = 1 000 trials",
		aeadAESGCM, ra, func(g *gen) []stanza { return append(rsaNobody(g, 124), g.rsaStanza(a, nil, nil)) })
	k.heldPrivate("ssh_rsa_private_trials_1008", Unsupported, "rule 12: a private envelope: 125 type 0x06 stanzas of L = 256 for nobody, then the reader's: 126 × 8 = 1 008 trials, which count in a private envelope too",
		aeadAESGCM, ra, func(g *gen) []stanza { return append(rsaNobody(g, 125), g.rsaStanza(a, nil, nil)) })
	env := func(name, class, comment string, anon bool, r reader, f func(g *gen) []stanza) {
		k.held(name, class, comment, aeadAESGCM, anon, r, f)
	}
	// The bounds of the modulus and of the public exponent.
	for _, c := range []struct {
		name, what string
		key        *sshKey
	}{
		{"ssh_rsa_4096_bits", "a 4 096-bit ssh-rsa key, the largest (L = 8 + 512)", sshRSA("alice", 4096)},
		{"ssh_rsa_exponent_3", "a 2 048-bit ssh-rsa key of public exponent 3, the least", sshRSAExponent("alice", 2048, 3)},
		{"ssh_rsa_exponent_2_24_minus_3", "a 2 048-bit ssh-rsa key of public exponent 2^24 - 3, the largest odd one below the bound 2^24 - 1 that is prime", sshRSAExponent("alice", 2048, 1<<24-3)},
	} {
		env(c.name, Success, "an X25519 stanza for bob, then the reader's type 0x06 stanza for "+c.what, false, reader{ssh: []*sshKey{c.key}},
			func(g *gen) []stanza { return []stanza{g.hpke(bob(x25519)), g.rsaStanza(c.key, nil, nil)} })
	}
	env("ssh_rsa_mixed_pq_rsa_reader", Malformed, "rule 11: the reader's type 0x06 stanza, then an ML-KEM-768+X25519 stanza for bob: refused whichever key opens", false, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(a, nil, nil), g.hpke(bob(mlkem))} })
	env("ssh_rsa_two_recipients", Success, "type 0x06 stanzas for bob's and the reader's ssh-rsa keys", false, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(b, nil, nil), g.rsaStanza(a, nil, nil)} })
	env("ssh_rsa_not_recipient", NotRecipient, "rule 13: a type 0x06 stanza for bob's ssh-rsa key only (another ssh_key_id: no decryption)", false, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(b, nil, nil)} })
	env("ssh_rsa_not_recipient_anonymous", NotRecipient, "rule 13: anonymous; a type 0x06 stanza for bob's 2 048-bit ssh-rsa key only", true, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(b, nil, nil)} })
	env("ssh_rsa_flipped_ciphertext", Authentication, "rule 14: the reader's type 0x06 stanza with a bit flipped in its ciphertext", false, ra,
		func(g *gen) []stanza { return []stanza{flipLast(g.rsaStanza(a, nil, nil))} })
	env("ssh_rsa_wrong_key", Authentication, "rule 14: a type 0x06 stanza with the reader's ssh_key_id, encrypted to bob's key", false, ra,
		func(g *gen) []stanza {
			return []stanza{edit(g.rsaStanza(b, nil, nil), func(body []byte) []byte { return cat(a.id, body[keyIDSize:]) })}
		})
	env("ssh_rsa_label_without_preamble", Authentication, "rule 14: the reader's type 0x06 stanza with the label fanseal/v1 ssh-rsa || H(ssh_key), without the preamble", false, ra,
		func(g *gen) []stanza {
			return []stanza{g.rsaStanza(a, nil, func([]byte) []byte { return cat([]byte("fanseal/v1 ssh-rsa"), a.hash()) })}
		})
	env("ssh_rsa_other_preamble", Authentication, "rule 14: the reader's type 0x06 stanza whose label holds the preamble of another envelope (another nonce)", false, ra,
		func(g *gen) []stanza {
			return []stanza{g.rsaStanza(a, nil, func(pre []byte) []byte { return cat([]byte("fanseal/v1 ssh-rsa"), a.hash(), flip(pre, 11)) })}
		})
	env("ssh_rsa_wrong_file_key", Authentication, "rule 14: the reader's type 0x06 stanza decrypts to a file key that does not verify the header MAC", false, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(a, g.rand(32), nil)} })
	env("ssh_rsa_length_of_other_modulus", Authentication, "rule 14: a type 0x06 stanza with the reader's ssh_key_id and L = 8 + 384 (a 3 072-bit ciphertext); the reader's modulus has 256 bytes", false, ra,
		func(g *gen) []stanza { return []stanza{raw(0x06, cat(a.id, g.rand(384)))} })
	env("ssh_rsa_body_255", Malformed, "rule 11b: the reader's stanza, then a type 0x06 stanza with L = 8 + 255 (k below 256)", false, reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{g.hpke(me), raw(0x06, cat(b.id, g.rand(255)))} })
	env("ssh_rsa_body_513", Malformed, "rule 11b: the reader's stanza, then a type 0x06 stanza with L = 8 + 513 (k above 512)", false, reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{g.hpke(me), raw(0x06, cat(b.id, g.rand(513)))} })
	env("ssh_rsa_body_512", Success, "rule 11b: the reader's stanza, then a type 0x06 stanza for nobody with L = 8 + 512 (a 4 096-bit ciphertext, the largest)", false, reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{g.hpke(me), raw(0x06, cat(b.id, g.rand(512)))} })
	env("ssh_rsa_short_mine", Malformed, "rule 11b: the reader's type 0x06 stanza cut by one byte (L = 8 + 255)", false, ra,
		func(g *gen) []stanza { return []stanza{grow(g.rsaStanza(a, nil, nil), -1)} })
	env("ssh_rsa_anonymous_body_255", Malformed, "rule 11b: anonymous; the reader's type 0x06 stanza, then one with L = 255", true, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(a, nil, nil), raw(0x06, g.rand(255))} })
	env("ssh_rsa_anonymous_body_513", Malformed, "rule 11b: anonymous; a type 0x06 stanza with L = 513, then the reader's", true, ra,
		func(g *gen) []stanza { return []stanza{raw(0x06, g.rand(513)), g.rsaStanza(a, nil, nil)} })
	env("ssh_rsa_duplicate", Malformed, "rule 11a: two type 0x06 stanzas with the reader's ssh_key_id", false, ra,
		func(g *gen) []stanza { return []stanza{g.rsaStanza(a, nil, nil), g.rsaStanza(a, nil, nil)} })
	env("ssh_rsa_duplicate_other", Malformed, "rule 11a: the reader's X25519 stanza, then two type 0x06 stanzas with bob's ssh_key_id", false, reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.rsaStanza(b, nil, nil), g.rsaStanza(b, nil, nil)} })
	env("ssh_rsa_key_id_of_x25519_stanza", Success, "rule 11a: a type 0x06 stanza for nobody whose identifier is the reader's X25519 key identifier, then the reader's X25519 stanza: a type 0x06 identifier never collides with a suite's", false, reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{raw(0x06, cat(me.id, g.rand(256))), g.hpke(me)} })
	env("ssh_rsa_mixed_pq", Malformed, "rule 11: the reader's ML-KEM-768+X25519 stanza, then a type 0x06 stanza (classical)", false, reader{ids: []*key{alice(mlkem)}},
		func(g *gen) []stanza { return []stanza{g.hpke(alice(mlkem)), g.rsaStanza(b, nil, nil)} })
	// Rule 12: each pair of a type 0x06 stanza of L = k and an ssh-rsa
	// identity of modulus size k is 8 trials, anonymous.
	nobody := func(g *gen, n, size int) []stanza {
		var ss []stanza
		for range n {
			ss = append(ss, raw(0x06, g.rand(size)))
		}
		return ss
	}
	env("ssh_rsa_trials_1000", Success, "rule 12: anonymous; 124 type 0x06 stanzas of L = 256 for nobody, then the reader's: 125 × 8 = 1 000 trials", true, ra,
		func(g *gen) []stanza { return append(nobody(g, 124, 256), g.rsaStanza(a, nil, nil)) })
	env("ssh_rsa_trials_1008", Unsupported, "rule 12: anonymous; 125 type 0x06 stanzas of L = 256 for nobody, then the reader's: 126 × 8 = 1 008 trials", true, ra,
		func(g *gen) []stanza { return append(nobody(g, 125, 256), g.rsaStanza(a, nil, nil)) })
	env("ssh_rsa_trials_same_identity_twice", Success, "rule 12: anonymous; 99 type 0x06 stanzas of L = 256 for nobody and the reader's, read with the ssh-rsa identity given twice: one public key, 100 × 8 = 800 trials", true,
		reader{ssh: []*sshKey{a, a}},
		func(g *gen) []stanza { return append(nobody(g, 99, 256), g.rsaStanza(a, nil, nil)) })
	env("ssh_rsa_trials_other_size", Success, "rule 12: anonymous; 200 type 0x06 stanzas of L = 384 for nobody, then the reader's 2 048-bit one: only stanzas of L = k are tried, 8 trials", true, ra,
		func(g *gen) []stanza { return append(nobody(g, 200, 384), g.rsaStanza(a, nil, nil)) })
	env("ssh_rsa_trials_other_identity", Success, "rule 12: anonymous; 200 type 0x06 stanzas of L = 256 for nobody, then the X25519 reader's stanza: type 0x06 stanzas cost an identity that is not ssh-rsa no trial", true, reader{ids: []*key{me}},
		func(g *gen) []stanza { return append(nobody(g, 200, 256), g.hpke(me)) })
}

// The kit's passphrase: UTF-8 beyond ASCII, with a space, as typed.
const kitPassphrase = "correct horse battery staple, édition 2"

func scryptVectors(k *kit) {
	rp := reader{passphrase: kitPassphrase}
	const logN = 10
	pass := func(g *gen) stanza { return g.scryptStanza(kitPassphrase, logN, logN, scryptLabel) }
	for _, aead := range aeads {
		for _, anon := range []bool{false, true} {
			suffix, how := aeadName(aead), "the anonymous flag clear"
			if anon {
				suffix, how = suffix+"_anonymous", "the anonymous flag set"
			}
			k.held("scrypt_success_"+suffix, Success, "a type 0x07 stanza alone, log_n 10, "+aeadName(aead)+", "+how, aead, anon, rp,
				func(g *gen) []stanza { return []stanza{pass(g)} })
		}
	}
	env := func(name, class, comment string, r reader, f func(g *gen) []stanza) {
		k.held(name, class, comment, aeadAESGCM, false, r, f)
	}
	env("scrypt_log_n_1", Success, "rule 11c: a type 0x07 stanza of log_n 1, the least allowed", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 1, 1, scryptLabel)} })
	env("scrypt_wrong_passphrase", Authentication, "rule 14: a type 0x07 stanza sealed for another passphrase", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase+".", logN, logN, scryptLabel)} })
	env("scrypt_flipped_ciphertext", Authentication, "rule 14: a type 0x07 stanza with a bit flipped in its ciphertext", rp,
		func(g *gen) []stanza { return []stanza{flipLast(pass(g))} })
	env("scrypt_salt_without_label", Authentication, "rule 14: a type 0x07 stanza whose scrypt salt is the 16-byte salt alone, without fanseal/v1 scrypt", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, logN, logN, "")} })
	env("scrypt_log_n_field_differs", Authentication, "rule 14: a type 0x07 stanza that says log_n 11 but was sealed with log_n 10", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 11, logN, scryptLabel)} })
	env("scrypt_log_n_23", Unsupported, "a type 0x07 stanza of log_n 23, over the reader's bound of 22: refused before any scrypt (sealed with log_n 10)", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 23, logN, scryptLabel)} })
	env("scrypt_log_n_30", Unsupported, "a type 0x07 stanza of log_n 30, the most the format allows, over the reader's bound of 22 (sealed with log_n 10)", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 30, logN, scryptLabel)} })
	env("scrypt_log_n_31", Malformed, "rule 11c: a type 0x07 stanza of log_n 31 (sealed with log_n 10)", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 31, logN, scryptLabel)} })
	env("scrypt_log_n_0", Malformed, "rule 11c: a type 0x07 stanza of log_n 0 (sealed with log_n 10)", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 0, logN, scryptLabel)} })
	env("scrypt_log_n_255", Malformed, "rule 11c: a type 0x07 stanza of log_n 255 (sealed with log_n 10)", rp,
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 255, logN, scryptLabel)} })
	env("scrypt_long", Malformed, "rule 11c: a type 0x07 stanza with L = 66", rp,
		func(g *gen) []stanza { return []stanza{grow(pass(g), 1)} })
	env("scrypt_short", Malformed, "rule 11c: a type 0x07 stanza with L = 64", rp,
		func(g *gen) []stanza { return []stanza{grow(pass(g), -1)} })
	env("scrypt_beside_x25519", Malformed, "rule 11c: a type 0x07 stanza, then the reader's X25519 stanza: count 2; the reader holds the passphrase and the X25519 identity", reader{passphrase: kitPassphrase, ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{pass(g), g.hpke(me)} })
	env("scrypt_beside_x25519_no_passphrase", Malformed, "rule 11c: the reader's X25519 stanza, then a type 0x07 stanza: count 2; the reader holds only the X25519 identity", reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{g.hpke(me), pass(g)} })
	env("scrypt_beside_unknown_type", Malformed, "rule 11c: a type 0x07 stanza and a stanza of unknown type 0xff: count 2", rp,
		func(g *gen) []stanza { return []stanza{pass(g), raw(0xff, nil)} })
	env("scrypt_twice", Malformed, "rule 11c: two type 0x07 stanzas for the reader's passphrase", rp,
		func(g *gen) []stanza { return []stanza{pass(g), pass(g)} })
	env("scrypt_no_passphrase", NotRecipient, "rule 13: a type 0x07 stanza alone, read with an X25519 identity and no passphrase", reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{pass(g)} })
	env("scrypt_log_n_23_no_passphrase", NotRecipient, "rule 13: a type 0x07 stanza of log_n 23, read without a passphrase: not a recipient, the bound is a passphrase holder's", reader{ids: []*key{me}},
		func(g *gen) []stanza { return []stanza{g.scryptStanza(kitPassphrase, 23, logN, scryptLabel)} })
	env("scrypt_not_for_x25519", NotRecipient, "rule 13: the reader's X25519 stanza alone, read with a passphrase only", rp,
		func(g *gen) []stanza { return []stanza{g.hpke(me)} })
}

func ageStanzaVectors(k *kit) {
	a, b := named(x25519, "age alice"), named(x25519, "age bob")
	ra := reader{age: []*key{a}}
	// wrapped returns the type 0x08 stanzas of one envelope's secret for
	// age's X25519 recipients to.
	wrapped := func(g *gen, to ...*key) []stanza {
		secret := g.rand(16)
		var ss []stanza
		for _, t := range to {
			ss = append(ss, ageWrapped(g.ageX25519(t, secret), secret, nil))
		}
		return ss
	}
	for _, aead := range aeads {
		for _, anon := range []bool{false, true} {
			suffix, how := aeadName(aead), "the anonymous flag clear"
			if anon {
				suffix, how = suffix+"_anonymous", "the anonymous flag set"
			}
			k.held("age_stanza_success_"+suffix, Success, "type 0x08 stanzas carrying age X25519 stanzas of one secret for bob and for the reader's age identity, "+aeadName(aead)+", "+how,
				aead, anon, ra, func(g *gen) []stanza { return wrapped(g, b, a) })
		}
	}
	env := func(name, class, comment string, r reader, f func(g *gen) []stanza) {
		k.held(name, class, comment, aeadAESGCM, false, r, f)
	}
	// Type 0x08 stanzas may stand beside a private envelope's.
	for _, aead := range aeads {
		k.heldPrivate("age_stanza_private_"+aeadName(aead), Success, "a private envelope: an X25519 ephemeral key and type 0x03 stanzas with tags for bob and carol, then a type 0x08 stanza for the reader's age identity, "+aeadName(aead),
			aead, ra, func(g *gen) []stanza {
				sh := g.shared(x25519)
				return append([]stanza{sh.ephemeral(), sh.to(bob(x25519)), sh.to(carol(x25519))}, wrapped(g, a)...)
			})
	}
	k.heldPrivate("age_stanza_private_x25519_reader", Success, "a private envelope: an X25519 ephemeral key, bob's and the reader's type 0x03 stanzas, and a type 0x08 stanza for an age identity; the reader is X25519",
		aeadAESGCM, reader{ids: []*key{me}}, func(g *gen) []stanza {
			sh := g.shared(x25519)
			return append([]stanza{sh.ephemeral(), sh.to(bob(x25519)), sh.to(me)}, wrapped(g, b)...)
		})
	k.heldPrivate("age_stanza_private_mixed_pq", Malformed, "rule 11: a private envelope: the hybrid type 0x02 and the reader's ML-KEM-768+X25519 stanza, then a type 0x08 stanza (classical)",
		aeadAESGCM, reader{ids: []*key{alice(mlkem)}}, func(g *gen) []stanza {
			sh := g.shared(mlkem)
			return append([]stanza{sh.ephemeral(), sh.to(alice(mlkem))}, wrapped(g, b)...)
		})
	env("age_stanza_beside_x25519", Success, "an X25519 stanza for bob, then a type 0x08 stanza for the reader's age identity", ra,
		func(g *gen) []stanza { return append([]stanza{g.hpke(bob(x25519))}, wrapped(g, a)...) })
	env("age_stanza_not_recipient", NotRecipient, "rule 13: a type 0x08 stanza for bob's age X25519 key only", ra,
		func(g *gen) []stanza { return wrapped(g, b) })
	env("age_stanza_x25519_reader", NotRecipient, "rule 13: a type 0x08 stanza for the age X25519 key of the reader's fanseal X25519 identity: only age identities open type 0x08 stanzas", reader{ids: []*key{me}},
		func(g *gen) []stanza { return wrapped(g, me) })
	env("age_stanza_flipped_age_body", NotRecipient, "rule 13: the reader's type 0x08 stanza with a bit flipped in the age stanza's body: age's X25519 identity finds none of its stanzas", ra,
		func(g *gen) []stanza {
			secret := g.rand(16)
			s := g.ageX25519(a, secret)
			s.body = flip(s.body, len(s.body)-1)
			return []stanza{ageWrapped(s, secret, nil)}
		})
	env("age_stanza_flipped_ciphertext", Authentication, "rule 14: the reader's type 0x08 stanza with a bit flipped in its ct: the secret opens no ct", ra,
		func(g *gen) []stanza { return []stanza{flipLast(wrapped(g, a)[0])} })
	env("age_stanza_wrong_secret", Authentication, "rule 14: the reader's age stanza wraps a secret, the file key is sealed under another: the secret opens no ct", ra,
		func(g *gen) []stanza { return []stanza{ageWrapped(g.ageX25519(a, g.rand(16)), g.rand(16), nil)} })
	env("age_stanza_info_without_hash", Authentication, "rule 14: the reader's type 0x08 stanza whose key has info fanseal/v1 age stanza, without SHA-256(age_stanza)", ra,
		func(g *gen) []stanza {
			secret := g.rand(16)
			return []stanza{ageWrapped(g.ageX25519(a, secret), secret, []byte("fanseal/v1 age stanza"))}
		})
	env("age_stanza_wrong_file_key", Authentication, "rule 14: the reader's type 0x08 stanza opens to a file key that does not verify the header MAC", ra,
		func(g *gen) []stanza {
			s := wrapped(g, a)[0]
			fk := g.rand(32)
			return []stanza{func(e *envelope, pre []byte) (byte, []byte) {
				c := *e
				c.fileKey = fk
				return s(&c, pre)
			}}
		})
	env("age_stanza_other_file_key_same_secret", Authentication, "rule 14: the reader's type 0x08 stanza, then bob's, of the same secret, whose ct seals another file key: the secret opens both cts, to two file keys", ra,
		func(g *gen) []stanza {
			secret, fk := g.rand(16), g.rand(32)
			mine, bobs := ageWrapped(g.ageX25519(a, secret), secret, nil), ageWrapped(g.ageX25519(b, secret), secret, nil)
			return []stanza{mine, func(e *envelope, pre []byte) (byte, []byte) {
				c := *e
				c.fileKey = fk
				return bobs(&c, pre)
			}}
		})
	env("age_stanza_mixed_pq_age_reader", Malformed, "rule 11: the reader's type 0x08 stanza, then an ML-KEM-768+X25519 stanza for bob: refused whichever key opens", ra,
		func(g *gen) []stanza { return append(wrapped(g, a), g.hpke(bob(mlkem))) })
	// Rule 9: type 0x08 stanzas are recipient stanzas.
	for _, c := range []struct {
		name, class, what string
		n                 int
	}{
		{"recipients_10000_with_age_stanzas", Success, "the reader's X25519 stanza and 9 999 type 0x08 stanzas of L = 53 for nobody: 10 000 recipient stanzas, the most", 9999},
		{"recipients_10001_with_age_stanzas", Malformed, "the reader's X25519 stanza and 10 000 type 0x08 stanzas of L = 53 for nobody: 10 001 recipient stanzas", 10000},
	} {
		k.add(c.name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			s := raw(0x08, cat([]byte{1, 1, 'x'}, u16(0), g.rand(ctSize)))
			for range c.n {
				e.add(s)
			}
			e.payload = g.text()
			v := open(c.class, "rule 9: "+c.what, e, me)
			v.Compressed = true
			return v
		})
	}
	env("age_stanza_mixed_pq", Malformed, "rule 11: the reader's ML-KEM-768+X25519 stanza, then a type 0x08 stanza (classical)", reader{ids: []*key{alice(mlkem)}},
		func(g *gen) []stanza { return append([]stanza{g.hpke(alice(mlkem))}, wrapped(g, b)...) })

	// Rule 11d: the framing of type 0x08, beside the X25519 reader's
	// stanza. An age stanza of nobody: words and body given.
	other := func(g *gen, words []string, body []byte) stanza {
		return ageWrapped(&ageStanza{words: words, body: body}, g.rand(16), nil)
	}
	mine := reader{ids: []*key{me}}
	framing := func(name, class, comment string, f func(g *gen) stanza) {
		env(name, class, comment, mine, func(g *gen) []stanza { return []stanza{g.hpke(me), f(g)} })
	}
	framing("age_stanza_53_bytes", Success, "rule 11d: the reader's stanza, then a type 0x08 stanza of L = 53, the least: one word of one byte, an empty body", func(g *gen) stanza {
		return other(g, []string{"x"}, nil)
	})
	framing("age_stanza_52_bytes", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza of L = 52: one word of one byte, an empty body, a ct of 47 bytes", func(g *gen) stanza {
		return grow(other(g, []string{"x"}, nil), -1)
	})
	framing("age_stanza_3_bytes", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza of L = 3 (argc 1, a word of length 1, and nothing more)", func(g *gen) stanza {
		return raw(0x08, []byte{1, 1, 'x'})
	})
	framing("age_stanza_65535_bytes", Success, "rule 11d: the reader's stanza, then a type 0x08 stanza of L = 65 535, the most: its words and body take 65 487 bytes", func(g *gen) stanza {
		return other(g, []string{"big"}, bytes.Repeat(g.rand(40), 65480/40)) // 65 480 bytes
	})
	framing("age_stanza_extra_byte", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza with a byte between the age body and ct (the words and body take L - 49 bytes)", func(g *gen) stanza {
		return edit(other(g, []string{"X25519", "abc"}, g.rand(32)), func(body []byte) []byte {
			return cat(body[:len(body)-ctSize], []byte{0}, body[len(body)-ctSize:])
		})
	})
	framing("age_stanza_body_past_end", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza whose B says one byte more than the body and ct hold besides the 48-byte ct", func(g *gen) stanza {
		return edit(other(g, []string{"X25519", "abc"}, g.rand(32)), func(body []byte) []byte {
			i := 1 + 7 + 4 // argc, the words with their lengths
			copy(body[i:], u16(33))
			return body
		})
	})
	framing("age_stanza_argc_0", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza with argc 0 (B = 32, a body, ct)", func(g *gen) stanza {
		return other(g, nil, g.rand(32))
	})
	framing("age_stanza_empty_word", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza whose second word is empty", func(g *gen) stanza {
		return other(g, []string{"X25519", ""}, g.rand(32))
	})
	framing("age_stanza_space_in_word", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza with a word holding a space (0x20)", func(g *gen) stanza {
		return other(g, []string{"X 25519"}, g.rand(32))
	})
	framing("age_stanza_del_in_word", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza with a word holding 0x7f", func(g *gen) stanza {
		return other(g, []string{"X25519\x7f"}, g.rand(32))
	})
	framing("age_stanza_non_ascii_word", Malformed, "rule 11d: the reader's stanza, then a type 0x08 stanza with a word holding 0xc3 0xa9 (UTF-8 of é)", func(g *gen) stanza {
		return other(g, []string{"\xc3\xa9"}, g.rand(32))
	})
	framing("age_stanza_255_words", Success, "rule 11d: the reader's stanza, then a type 0x08 stanza of 255 words of 255 bytes (argc 255), for nobody", func(g *gen) stanza {
		words := make([]string, 255)
		for i := range words {
			words[i] = strings.Repeat(string(rune('!'+i%94)), 255)
		}
		return other(g, words, nil)
	})
	framing("age_stanza_printable_bounds", Success, "rule 11d: the reader's stanza, then a type 0x08 stanza whose words hold 0x21 and 0x7e, the bounds of printable ASCII", func(g *gen) stanza {
		return other(g, []string{"!~", "~!"}, g.rand(16))
	})

	// Rule 12: each pair of a type 0x08 stanza and an age identity is one
	// trial, anonymous flag or not.
	nobody := func(g *gen, n int) []stanza {
		var ss []stanza
		for range n {
			ss = append(ss, other(g, []string{"X25519", base64.RawStdEncoding.EncodeToString(g.ephemeral(x25519).pk)}, g.rand(32)))
		}
		return ss
	}
	env("age_stanza_trials_1000", Success, "rule 12: 999 type 0x08 stanzas of age X25519 stanzas for nobody, then the reader's: 1 000 trials for its age identity, with key identifiers", ra,
		func(g *gen) []stanza { return append(nobody(g, 999), wrapped(g, a)...) })
	env("age_stanza_trials_1001", Unsupported, "rule 12: 1 000 type 0x08 stanzas of age X25519 stanzas for nobody, then the reader's: 1 001 trials for its age identity, refused although the envelope is not anonymous", ra,
		func(g *gen) []stanza { return append(nobody(g, 1000), wrapped(g, a)...) })
	env("age_stanza_trials_two_identities", Unsupported, "rule 12: 500 type 0x08 stanzas for nobody and the reader's, read with two age identities: 1 002 trials", reader{age: []*key{a, b}},
		func(g *gen) []stanza { return append(nobody(g, 500), wrapped(g, a)...) })
	k.held("age_stanza_trials_with_anonymous", Unsupported, "rule 12: anonymous; 600 X25519 stanzas and 600 type 0x08 stanzas for nobody, then the X25519 reader's, read with its X25519 identity and an age identity: 601 + 600 = 1 201 trials, over 1 000 although each kind is under",
		aeadAESGCM, true, reader{ids: []*key{me}, age: []*key{a}}, func(g *gen) []stanza {
			var ss []stanza
			for range 600 {
				ss = append(ss, raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))), raw(0x08, cat([]byte{1, 1, 'x'}, u16(0), g.rand(ctSize))))
			}
			return append(ss, g.hpke(me))
		})
	// In a private envelope the trials of type 0x06 and type 0x08 stanzas
	// count together.
	rsaA := sshRSA("alice", 2048)
	for _, c := range []struct {
		name, class, what string
		n                 int
	}{
		{"age_stanza_private_trials_with_rsa_1000", Success, "100 × 8 + 200 = 1 000 trials, the most", 200},
		{"age_stanza_private_trials_with_rsa_1001", Unsupported, "100 × 8 + 201 = 1 001 trials, over 1 000 although each kind is under", 201},
	} {
		k.heldPrivate(c.name, c.class, "rule 12: a private envelope: 99 type 0x06 stanzas of L = 256 for nobody and the reader's, and "+strconv.Itoa(c.n)+" type 0x08 stanzas for nobody, read with the ssh-rsa identity and an age identity: "+c.what,
			aeadAESGCM, reader{ssh: []*sshKey{rsaA}, age: []*key{a}}, func(g *gen) []stanza {
				var ss []stanza
				for range 99 {
					ss = append(ss, raw(0x06, g.rand(256)))
				}
				ss = append(ss, g.rsaStanza(rsaA, nil, nil))
				return append(ss, nobody(g, c.n)...)
			})
	}
	env("age_stanza_trials_x25519_reader", Success, "rule 12: 1 001 type 0x08 stanzas for nobody, then the X25519 reader's stanza: no age identity, no trial", mine,
		func(g *gen) []stanza { return append(nobody(g, 1001), g.hpke(me)) })
}

// sshKeyTextVectors: SSH public key lines (recipient) and private key
// files (ssh-identity) that a reader refuses.
func sshKeyTextVectors(k *kit) {
	recipient := func(name, comment, line string) {
		k.add(name, func(g *gen) *Vector {
			return &Vector{Expect: InvalidKey, Comments: []string{comment}, Recipients: []string{line}}
		})
	}
	b64 := base64.StdEncoding.EncodeToString
	a := sshEd25519("alice")
	// A point with a small y, whose encoding y + p is below 2^255.
	var small *big.Int
	for y := int64(2); ; y++ {
		if _, ok := edwardsX2(big.NewInt(y)); ok {
			small = big.NewInt(y)
			break
		}
	}
	if u, _ := montgomery(le(small, 32)); isLowOrderU(u) {
		panic("the small-y point is of low order")
	}
	nonCanonical := le(new(big.Int).Add(small, p25519), 32)
	recipient("ssh_ed25519_noncanonical_y", "ssh-ed25519 key whose A encodes y + p for a point of y = "+small.String()+": not the canonical encoding of its point",
		"ssh-ed25519 "+b64(ed25519Wire(nonCanonical))+" user@host")
	var notPoint *big.Int
	for y := int64(2); ; y++ {
		if _, ok := edwardsX2(big.NewInt(y)); !ok {
			notPoint = big.NewInt(y)
			break
		}
	}
	recipient("ssh_ed25519_not_a_point", "ssh-ed25519 key whose A has y = "+notPoint.String()+", for which no x exists: not a point of edwards25519",
		"ssh-ed25519 "+b64(ed25519Wire(le(notPoint, 32))))
	recipient("ssh_ed25519_identity_point", "ssh-ed25519 key whose A is the neutral point (y = 1), of order 1: u = 0",
		"ssh-ed25519 "+b64(ed25519Wire(le(big.NewInt(1), 32))))
	recipient("ssh_ed25519_order_4", "ssh-ed25519 key whose A is the point (x, 0) of order 4: u = 1, a low-order X25519 key",
		"ssh-ed25519 "+b64(ed25519Wire(make([]byte, 32))))
	recipient("ssh_ed25519_key_31_bytes", "ssh-ed25519 key whose A has 31 bytes", "ssh-ed25519 "+b64(ed25519Wire(a.wire[19:50])))
	recipient("ssh_ed25519_type_word_mismatch", "an ssh-ed25519 key under the type word ssh-rsa", "ssh-rsa "+b64(a.wire))
	recipient("ssh_ed25519_options", "an authorized_keys line with options before the ssh-ed25519 key", `no-pty,from="10.0.0.1" `+a.line("user@host"))
	recipient("ssh_ed25519_option_command", "an authorized_keys line with a command option before the ssh-ed25519 key", `command="echo hi" `+a.line(""))
	recipient("ssh_ed25519_bad_base64", "an ssh-ed25519 line whose base64 has a character changed to !", strings.Replace(a.line("c"), "A", "!", 1))
	sk := cat(sshString([]byte("sk-ssh-ed25519@openssh.com")), sshString(a.wire[19:]), sshString([]byte("ssh:")))
	recipient("ssh_sk_ed25519", "an sk-ssh-ed25519@openssh.com key (a security key's), which fanseal does not read",
		"sk-ssh-ed25519@openssh.com "+b64(sk)+" user@host")
	p := alice(p256)
	skECDSA := cat(sshString([]byte("sk-ecdsa-sha2-nistp256@openssh.com")), sshString([]byte("nistp256")), sshString(p.pk), sshString([]byte("ssh:")))
	recipient("ssh_sk_ecdsa_p256", "an sk-ecdsa-sha2-nistp256@openssh.com key, which fanseal does not read",
		"sk-ecdsa-sha2-nistp256@openssh.com "+b64(skECDSA))
	p384 := cat(sshString([]byte("ecdsa-sha2-nistp384")), sshString([]byte("nistp384")), sshString(cat([]byte{4}, draw("p384 x", 48), draw("p384 y", 48))))
	recipient("ssh_ecdsa_p384", "an ecdsa-sha2-nistp384 key, which fanseal does not read", "ecdsa-sha2-nistp384 "+b64(p384))
	dss := cat(sshString([]byte("ssh-dss")), sshMpint(new(big.Int).SetBytes(draw("dss p", 128))), sshMpint(new(big.Int).SetBytes(draw("dss q", 20))),
		sshMpint(new(big.Int).SetBytes(draw("dss g", 128))), sshMpint(new(big.Int).SetBytes(draw("dss y", 128))))
	recipient("ssh_dss", "an ssh-dss key, which fanseal does not read", "ssh-dss "+b64(dss))
	recipient("ssh_ecdsa_p256_off_curve", "an ecdsa-sha2-nistp256 key whose Q is off the curve",
		"ecdsa-sha2-nistp256 "+b64(cat(sshString([]byte("ecdsa-sha2-nistp256")), sshString([]byte("nistp256")), sshString(offCurve(p)))))
	recipient("ssh_ecdsa_p256_curve_mismatch", "an ecdsa-sha2-nistp256 key whose curve name is nistp384",
		"ecdsa-sha2-nistp256 "+b64(cat(sshString([]byte("ecdsa-sha2-nistp256")), sshString([]byte("nistp384")), sshString(p.pk))))

	// ssh-rsa: modulus of 2 048 to 4 096 bits, public exponent odd, 3 to
	// 2^24 - 1. A public key's modulus need not be a product of primes for
	// a reader to refuse its size.
	n := sshRSA("alice", 2048).rsa.N
	odd := func(bits int, label string) *big.Int {
		b := draw(label, (bits+7)/8)
		m := new(big.Int).SetBytes(b)
		m.SetBit(m, bits-1, 1)
		m.SetBit(m, 0, 1)
		for i := m.BitLen(); i > bits; i-- {
			m.SetBit(m, i-1, 0)
		}
		return m
	}
	rsaLine := func(e, n *big.Int) string { return "ssh-rsa " + b64(rsaWire(e, n)) }
	f4 := big.NewInt(65537)
	recipient("ssh_rsa_1024_bits", "an ssh-rsa key of 1 024 bits (below 2 048)", rsaLine(f4, sshRSA("short", 1024).rsa.N))
	recipient("ssh_rsa_2047_bits", "an ssh-rsa key whose modulus has 2 047 bits", rsaLine(f4, odd(2047, "rsa 2047")))
	recipient("ssh_rsa_4097_bits", "an ssh-rsa key whose modulus has 4 097 bits", rsaLine(f4, odd(4097, "rsa 4097")))
	recipient("ssh_rsa_even_exponent", "an ssh-rsa key of 2 048 bits with the public exponent 65 538 (even)", rsaLine(big.NewInt(65538), n))
	recipient("ssh_rsa_exponent_1", "an ssh-rsa key of 2 048 bits with the public exponent 1", rsaLine(big.NewInt(1), n))
	recipient("ssh_rsa_exponent_2_24_plus_1", "an ssh-rsa key of 2 048 bits with the public exponent 2^24 + 1 (above 2^24 - 1)", rsaLine(big.NewInt(1<<24+1), n))

	// Private key files.
	k.add("ssh_identity_rsa_1024_bits", func(g *gen) *Vector {
		return &Vector{Expect: InvalidKey, Comments: []string{"an OpenSSH private key file of an ssh-rsa key of 1 024 bits (below 2 048); no envelope, since no type 0x06 stanza holds a 128-byte ciphertext (rule 11b)"},
			SSHIdentities: [][]byte{sshRSA("short", 1024).file}}
	})
}

// isLowOrderU reports whether u (little-endian) is one of the low-order
// X25519 u-coordinates FORMAT.md lists, or u >= p.
func isLowOrderU(u []byte) bool {
	for _, l := range []string{"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
		"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"} {
		if string(hexBytes(l)) == string(u) {
			return true
		}
	}
	return fromLE(u).Cmp(p25519) >= 0
}
