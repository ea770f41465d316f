package testkit

// The vectors. Each has exactly one fault (or none), so its expected
// outcome is unambiguous; "rule N" refers to the list in FORMAT.md, "What
// a reader checks". Unless said otherwise the reader is alice's X25519
// identity and the AEAD is AES-256-GCM.

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// vectors returns every vector of the kit.
func vectors(t *testing.T) []*Vector {
	k := &kit{t: t}
	successVectors(k)
	payloadVectors(k)
	preambleVectors(k)
	headerVectors(k)
	framingVectors(k)
	limitVectors(k)
	anonymousVectors(k)
	openingVectors(k)
	skipVectors(k)
	channelVectors(k)
	armorVectors(k)
	keyTextVectors(k)
	privateVectors(k)
	sshVectors(k)
	settledVectors(k)
	return k.vs
}

var me = alice(x25519)

// successVectors: every suite × stanza type × AEAD, with and without key
// identifiers. The reader's stanza comes after another recipient's.
func successVectors(k *kit) {
	for _, s := range kems {
		for _, a := range aeads {
			for _, anon := range []bool{false, true} {
				suffix, how := aeadName(a), "with key identifiers"
				if anon {
					suffix, how = suffix+"_anonymous", "anonymous"
				}
				k.add(fmt.Sprintf("success_%s_hpke_%s", s.name, suffix), func(g *gen) *Vector {
					e := g.newEnvelope(a, anon).add(g.hpke(bob(s)), g.hpke(alice(s)))
					e.payload = g.text()
					return open(Success, fmt.Sprintf("type 0x01 stanzas of %s, %s, %s: the second opens", s.name, aeadName(a), how), e, alice(s))
				})
				if !s.classical() {
					continue
				}
				k.add(fmt.Sprintf("success_%s_shared_%s", s.name, suffix), func(g *gen) *Vector {
					sh := g.shared(s)
					e := g.newEnvelope(a, anon).add(sh.ephemeral(), sh.to(bob(s)), sh.to(alice(s)))
					e.payload = g.text()
					return open(Success, fmt.Sprintf("a type 0x02 ephemeral key of %s and two type 0x03 stanzas, %s, %s: the second opens", s.name, aeadName(a), how), e, alice(s))
				})
			}
			if !s.classical() {
				continue
			}
			k.add(fmt.Sprintf("success_%s_channel_%s", s.name, aeadName(a)), func(g *gen) *Vector {
				c := g.channel(bob(s), alice(s), 7)
				e := g.newEnvelope(a, false).add(g.hpke(carol(s)), c.stanza())
				e.payload = g.text()
				v := open(Success, fmt.Sprintf("a type 0x04 channel stanza of %s from bob to alice at epoch 7, %s; alice's keyring is at epoch 7", s.name, aeadName(a)), e)
				return withKeyring(v, alice(s), bob(s), 7)
			})
		}
	}
	k.add("success_two_identities", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(bob(x25519)), g.hpke(me))
		e.payload = g.text()
		return open(Success, "two identities, the first (P-256) not a recipient", e, carol(p256), me)
	})
	k.add("success_classical_suites_mixed", func(g *gen) *Vector {
		sh := g.shared(secp256k1KEM)
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(bob(p256)), sh.ephemeral(), sh.to(bob(secp256k1KEM)), g.hpke(me))
		e.payload = g.text()
		return open(Success, "classical suites mix freely (rule 11 is about post-quantum and classical)", e, me)
	})
}

func payloadVectors(k *kit) {
	sized := func(n int) []byte {
		p := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)
		return p[:n]
	}
	ok := func(name, comment string, a uint16, payload []byte) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(a, false).add(g.hpke(me))
			e.payload = payload
			return open(Success, comment, e, me)
		})
	}
	ok("payload_empty", "an empty payload: one empty last chunk", aeadAESGCM, []byte{})
	ok("payload_empty_chacha20poly1305", "an empty payload: one empty last chunk", aeadChaCha, []byte{})
	ok("payload_64k", "exactly 65 536 bytes: one full last chunk", aeadAESGCM, sized(chunkSize))
	ok("payload_64k_plus_1", "65 537 bytes: a full chunk and a last chunk of one byte", aeadAESGCM, sized(chunkSize+1))
	ok("payload_64k_plus_1_chacha20poly1305", "65 537 bytes: a full chunk and a last chunk of one byte", aeadChaCha, sized(chunkSize+1))

	// Faults: the comment says what was done to a valid payload.
	bad := func(name, class, comment string, payload []byte, chunks []chunk, cut func(env []byte, header int) []byte) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			e.payload, e.chunks = payload, chunks
			enc := e.encode()
			body := enc.bytes
			if cut != nil {
				body = cut(body, enc.header)
			}
			return result(class, "rule 15: "+comment, body, nil, me)
		})
	}
	two := sized(chunkSize + 1)
	bad("payload_truncated_at_chunk_boundary", Truncated,
		"a 65 537-byte payload without its last chunk: the envelope ends after a full chunk sealed as a middle one",
		two, nil, func(b []byte, _ int) []byte { return b[:len(b)-1-16] })
	bad("payload_truncated_no_chunk", Truncated, "the envelope ends right after the header MAC",
		[]byte("payload"), nil, func(b []byte, h int) []byte { return b[:h+32] })
	bad("payload_truncated_inside_last_chunk", Authentication, "the last chunk lost its last 5 bytes",
		[]byte("a payload of a few bytes, sealed in one last chunk"), nil, func(b []byte, _ int) []byte { return b[:len(b)-5] })
	// A chunk cut inside is a chunk that does not open, on both sides of
	// its 16-byte tag; only a cut at a chunk boundary is truncation.
	short := []byte("a payload of a few bytes, sealed in one last chunk")
	bad("payload_last_chunk_15_bytes_left", Authentication, "the only chunk cut to 15 bytes, fewer than its 16-byte tag",
		short, nil, func(b []byte, h int) []byte { return b[:h+32+15] })
	bad("payload_last_chunk_16_bytes_left", Authentication, "the only chunk cut to 16 bytes, the size of its tag",
		short, nil, func(b []byte, h int) []byte { return b[:h+32+16] })
	bad("payload_15_bytes_after_full_chunk", Authentication, "a payload of a full chunk and 30 bytes, cut 15 bytes into its last chunk",
		sized(chunkSize+30), nil, func(b []byte, h int) []byte { return b[:h+32+chunkSize+16+15] })
	bad("payload_16_bytes_after_full_chunk", Authentication, "a payload of a full chunk and 30 bytes, cut 16 bytes into its last chunk",
		sized(chunkSize+30), nil, func(b []byte, h int) []byte { return b[:h+32+chunkSize+16+16] })
	bad("payload_trailing_byte", Authentication, "a zero byte after the last chunk (trailing data)",
		[]byte("payload"), nil, func(b []byte, _ int) []byte { return append(b, 0) })
	bad("payload_flipped_tag", Authentication, "a bit flipped in the tag of the last chunk",
		[]byte("payload"), nil, func(b []byte, _ int) []byte { return flip(b, len(b)-1) })
	bad("payload_flipped_tag_first_chunk", Authentication, "a bit flipped in the tag of the first of two chunks",
		two, nil, func(b []byte, h int) []byte { return flip(b, h+32+chunkSize+15) })
	bad("payload_flipped_ciphertext", Authentication, "a bit flipped in the first byte of the payload ciphertext",
		[]byte("payload"), nil, func(b []byte, h int) []byte { return flip(b, h+32) })
	bad("payload_last_flag_missing", Authentication, "a short single chunk sealed with the last-chunk flag 0x00",
		nil, []chunk{{pt: []byte("a payload sealed as a middle chunk")}}, nil)
	bad("payload_last_flag_missing_empty", Authentication, "an empty single chunk sealed with the last-chunk flag 0x00",
		nil, []chunk{{pt: []byte{}}}, nil)
	bad("payload_last_flag_on_first_chunk", Authentication, "two chunks, the first (full) sealed with the last-chunk flag 0x01",
		nil, []chunk{{pt: two[:chunkSize], last: true}, {pt: two[chunkSize:], last: true}}, nil)
	bad("payload_empty_last_chunk_after_full", Malformed,
		"a full chunk and then an empty last chunk: the last chunk is empty only when the whole payload is",
		nil, []chunk{{pt: two[:chunkSize]}, {pt: []byte{}, last: true}}, nil)
	bad("payload_chunk_after_last", Authentication,
		"a valid last chunk followed by a validly sealed further chunk (trailing data)",
		nil, []chunk{{pt: []byte("the last chunk"), last: true}, {pt: []byte("and one more"), last: true}}, nil)
}

// preambleVectors: rules 1 and 2.
func preambleVectors(k *kit) {
	bad := func(name, class, comment string, f func(e *envelope)) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			e.payload = g.text()
			f(e)
			return open(class, comment, e, me)
		})
	}
	bad("preamble_magic", Malformed, "rule 1: the magic is FANSEAM", func(e *envelope) { e.magic = "FANSEAM" })
	bad("preamble_magic_lower_case", Malformed, "rule 1: the magic is fanseal", func(e *envelope) { e.magic = "fanseal" })
	bad("preamble_version_0", Unsupported, "rule 1: version 0", func(e *envelope) { e.version = 0 })
	bad("preamble_version_2", Unsupported, "rule 1: version 2", func(e *envelope) { e.version = 2 })
	bad("preamble_flag_bit_1", Unsupported, "rule 1: flag bit 1 set", func(e *envelope) { e.flags = 0x02 })
	bad("preamble_flag_bit_7", Unsupported, "rule 1: flag bit 7 set", func(e *envelope) { e.flags = 0x80 })
	bad("preamble_aead_aes128gcm", Unsupported, "rule 1: AEAD 0x0001 (AES-128-GCM); stanzas and payload sealed with AES-256-GCM",
		func(e *envelope) { e.aead, e.sealAEAD = 0x0001, aeadAESGCM })
	bad("preamble_aead_export_only", Unsupported, "rule 1: AEAD 0xffff; stanzas and payload sealed with AES-256-GCM",
		func(e *envelope) { e.aead, e.sealAEAD = 0xffff, aeadAESGCM })
	k.add("preamble_flag_bit_1_anonymous", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, true).add(g.hpke(me))
		e.flags |= 0x02
		e.payload = g.text()
		return open(Unsupported, "rule 1: flags 0x03 (anonymous and bit 1)", e, me)
	})
	k.add("preamble_not_an_envelope", func(g *gen) *Vector {
		return result(Malformed, "rule 1: plain text, not an envelope",
			[]byte("This is plain text and not a fanseal envelope, long enough to hold a preamble and a MAC.\n"), nil, me)
	})
	k.add("preamble_4_bytes_not_magic", func(g *gen) *Vector {
		return result(Malformed, "rule 1: four bytes XXXX, no prefix of the magic: malformed, not truncated", []byte("XXXX"), nil, me)
	})
	k.add("truncated_magic_prefix", func(g *gen) *Vector {
		return result(Truncated, "rule 3: the four bytes FANS, a prefix of the magic", []byte("FANS"), nil, me)
	})
	k.add("preamble_count_zero", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false)
		e.payload = g.text()
		return open(Malformed, "rule 2: a stanza count of 0 (header MAC and payload valid)", e, me)
	})
	// 10 008 stanzas are allowed, 10 009 are not; the fillers are
	// stanzas of an unknown type with empty bodies, not recipients.
	counted := func(name, class, comment string, n int) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			for len(e.stanzas) < n {
				e.add(raw(0xff, nil))
			}
			e.payload = g.text()
			v := open(class, comment, e, me)
			v.Compressed = true
			return v
		})
	}
	counted("preamble_count_10008", Success, "rule 2: 10 008 stanzas, the most allowed: the reader's and 10 007 of unknown type 0xff", 10008)
	counted("preamble_count_10009", Malformed, "rule 2: 10 009 stanzas: the reader's and 10 008 of unknown type 0xff", 10009)
}

// headerVectors: rule 3.
func headerVectors(k *kit) {
	cut := func(name, comment string, at func(enc *encoded) int) {
		k.add(name, func(g *gen) *Vector {
			sh := g.shared(x25519)
			e := g.newEnvelope(aeadAESGCM, false).add(sh.ephemeral(), sh.to(me), g.hpke(bob(x25519)))
			e.payload = g.text()
			enc := e.encode()
			return result(Truncated, "rule 3: "+comment, enc.bytes[:at(enc)], nil, me)
		})
	}
	cut("truncated_empty", "an empty file", func(*encoded) int { return 0 })
	cut("truncated_inside_preamble", "the envelope ends after 20 bytes, inside the preamble", func(*encoded) int { return 20 })
	cut("truncated_after_preamble", "the envelope ends after the preamble", func(*encoded) int { return preambleSize })
	cut("truncated_inside_stanza_header", "the envelope ends inside the first stanza's type and length", func(*encoded) int { return preambleSize + 2 })
	cut("truncated_inside_stanza_body", "the envelope ends inside the second stanza's body", func(enc *encoded) int { return enc.stanzaEnd[1] - 10 })
	cut("truncated_before_last_stanza", "the envelope ends after the second of three stanzas", func(enc *encoded) int { return enc.stanzaEnd[1] })
	cut("truncated_before_mac", "the envelope ends after the header", func(enc *encoded) int { return enc.header })
	cut("truncated_inside_mac", "the envelope ends inside the header MAC", func(enc *encoded) int { return enc.header + 16 })

	// The header limit: unknown-type stanzas of zeros fill the header to
	// exactly 16 MiB, or one byte more.
	sizedEnv := func(g *gen, size int) (*envelope, *encoded) {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
		rest := size - preambleSize - (3 + 2 + 8 + 32 + 48)
		for rest > 3+0xffff {
			e.add(raw(0xfe, make([]byte, 0xffff)))
			rest -= 3 + 0xffff
		}
		if rest < 3 {
			panic("header filler")
		}
		e.add(raw(0xfe, make([]byte, rest-3)))
		e.payload = g.text()
		enc := e.encode()
		if enc.header != size {
			panic("header size")
		}
		return e, enc
	}
	sized := func(name, class, comment string, size int) {
		k.add(name, func(g *gen) *Vector {
			e, enc := sizedEnv(g, size)
			v := result(class, comment, enc.bytes, e.payload, me)
			v.Compressed = true
			return v
		})
	}
	sized("header_16mib", Success, "rule 3: a header of exactly 16 MiB (16 777 216 bytes): the reader's stanza, then stanzas of unknown type 0xfe", 16<<20)
	sized("header_over_16mib", Malformed, "rule 3: a header of 16 MiB + 1 byte: the reader's stanza first, then stanzas of unknown type 0xfe", 16<<20+1)
	k.add("header_over_16mib_cut", func(g *gen) *Vector {
		_, enc := sizedEnv(g, 16<<20+1)
		last := enc.stanzaEnd[len(enc.stanzaEnd)-2] // where the last stanza starts
		if last+3 >= 16<<20 {
			panic("the cut is not inside the last stanza's body")
		}
		v := result(Malformed, "rule 3: a header of 16 MiB + 1 byte as in header_over_16mib, the file cut after 16 MiB, inside the body of the stanza that takes the header past the limit: its length crosses the limit, whatever follows",
			enc.bytes[:16<<20], nil, me)
		v.Compressed = true
		return v
	})
}

// framingVectors: rules 4 to 8, each fault before and after the reader's
// good stanza, in the reader's own stanza, in another recipient's, and in
// another suite's.
func framingVectors(k *kit) {
	// env builds an envelope of stanzas made by f, for the reader r.
	env := func(name, comment string, anon bool, r *key, f func(g *gen) []stanza) {
		k.stanzas(name, Malformed, comment, anon, []*key{r}, f)
	}
	b := bob(x25519)
	pb := bob(p256)

	// Rule 4: the body length of type 0x01 stanzas of known suites.
	env("stanza01_long_mine", "rule 4: the reader's only stanza has one byte too many", false, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(me), 1)} })
	env("stanza01_short_mine", "rule 4: the reader's only stanza has one byte too few", false, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(me), -1)} })
	env("stanza01_long_mine_before_good", "rule 4: a stanza with the reader's key identifier and one byte too many, then the reader's good stanza", false, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(me), 1), g.hpke(me)} })
	env("stanza01_long_mine_after_good", "rule 4: the reader's good stanza, then a stanza with its key identifier and one byte too many", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), grow(g.hpke(me), 1)} })
	env("stanza01_long_other_before_good", "rule 4: another X25519 recipient's stanza with one byte too many, then the reader's", false, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(b), 1), g.hpke(me)} })
	env("stanza01_long_other_after_good", "rule 4: the reader's stanza, then another X25519 recipient's with one byte too many", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), grow(g.hpke(b), 1)} })
	env("stanza01_short_other_suite_after_good", "rule 4: the reader's stanza, then a P-256 stanza with one byte too few", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), grow(g.hpke(pb), -1)} })
	env("stanza01_long_other_suite_before_good", "rule 4: a secp256k1 stanza with one byte too many, then the reader's", false, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(bob(secp256k1KEM)), 1), g.hpke(me)} })
	env("stanza01_long_mlkem_after_good", "rule 4: an ML-KEM-768+X25519 reader's stanza, then another one's with one byte too many", false, alice(mlkem),
		func(g *gen) []stanza { return []stanza{g.hpke(alice(mlkem)), grow(g.hpke(bob(mlkem)), 1)} })
	env("stanza01_long_anonymous_before_good", "rule 4: anonymous; a stanza of the reader's suite with one byte too many, then the reader's good stanza", true, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(b), 1), g.hpke(me)} })
	env("stanza01_long_anonymous_after_good", "rule 4: anonymous; the reader's good stanza, then a stanza of its suite with one byte too many", true, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), grow(g.hpke(b), 1)} })
	env("stanza01_short_anonymous_mine", "rule 4: anonymous; the reader's only stanza has one byte too few", true, me,
		func(g *gen) []stanza { return []stanza{grow(g.hpke(me), -1)} })
	withID := func(s stanza, id []byte) stanza {
		return edit(s, func(body []byte) []byte { return cat(body[:2], id, body[2:]) })
	}
	withoutID := func(s stanza) stanza {
		return edit(s, func(body []byte) []byte { return cat(body[:2], body[2+keyIDSize:]) })
	}
	env("stanza01_key_id_in_anonymous", "rule 4: anonymous; another recipient's stanza carries a key identifier (L = 2 + 8 + Nenc + 48), then the reader's", true, me,
		func(g *gen) []stanza { return []stanza{withID(g.hpke(b), b.id), g.hpke(me)} })
	env("stanza01_no_key_id", "rule 4: the reader's stanza, then another recipient's without a key identifier (L = 2 + Nenc + 48)", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), withoutID(g.hpke(b))} })

	// Rule 5: type 0x02.
	env("stanza02_long_other_suite", "rule 5: the reader's stanza, then a P-256 ephemeral key with one byte too many and a type 0x03 stanza using it", false, me,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{g.hpke(me), grow(sh.ephemeral(), 1), sh.to(pb)}
		})
	env("stanza02_short_mine", "rule 5: an X25519 ephemeral key with one byte too few, then the reader's type 0x03 stanza using it", false, me,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{grow(sh.ephemeral(), -1), sh.to(me)}
		})
	env("stanza02_mlkem", "rule 5: the reader's ML-KEM-768+X25519 stanza, then a type 0x02 stanza of ML-KEM-768+X25519 (L = 2 + 1120)", false, alice(mlkem),
		func(g *gen) []stanza {
			return []stanza{g.hpke(alice(mlkem)), raw(0x02, cat(u16(kemMLKEM), g.rand(mlkem.nenc)))}
		})
	twoEphemerals := func(g *gen) []stanza {
		s1, s2 := g.shared(p256), g.shared(p256)
		return []stanza{s1.ephemeral(), s1.to(pb), s2.ephemeral(), s2.to(carol(p256))}
	}
	env("stanza02_repeated_after_good", "rule 5: the reader's stanza, then two P-256 ephemeral keys, each followed by a type 0x03 stanza", false, me,
		func(g *gen) []stanza { return append([]stanza{g.hpke(me)}, twoEphemerals(g)...) })
	env("stanza02_repeated_before_good", "rule 5: two P-256 ephemeral keys, each followed by a type 0x03 stanza, then the reader's stanza", false, me,
		func(g *gen) []stanza { return append(twoEphemerals(g), g.hpke(me)) })
	twoEphemeralsMine := func(g *gen) []stanza {
		s1, s2 := g.shared(x25519), g.shared(x25519)
		return []stanza{s1.ephemeral(), s1.to(me), s2.ephemeral(), s2.to(b)}
	}
	env("stanza02_repeated_mine", "rule 5: an X25519 ephemeral key and the reader's type 0x03 stanza, then a second X25519 ephemeral key and another recipient's", false, me,
		twoEphemeralsMine)
	env("stanza02_repeated_anonymous", "rule 5: anonymous; an X25519 ephemeral key and the reader's type 0x03 stanza, then a second X25519 ephemeral key and another recipient's", true, me,
		twoEphemeralsMine)
	// At most eight type 0x02 stanzas, one per suite: eight of unknown
	// suites, each used by a type 0x03 stanza, are allowed; a ninth is not.
	ephemerals := func(n int) func(g *gen) []stanza {
		return func(g *gen) []stanza {
			ss := []stanza{g.hpke(me)}
			for i := range n {
				suite := u16(0x1001 + i)
				ss = append(ss, raw(0x02, cat(suite, g.rand(32))), raw(0x03, cat(suite, g.rand(keyIDSize+ctSize))))
			}
			return ss
		}
	}
	k.stanzas("stanza02_eight", Success, "rule 5: the reader's stanza, then eight type 0x02 stanzas of unknown suites 0x1001 to 0x1008, each used by a type 0x03 stanza", false, []*key{me}, ephemerals(8))
	env("stanza02_ninth", "rule 5: the reader's stanza, then nine type 0x02 stanzas of unknown suites 0x1001 to 0x1009, each used by a type 0x03 stanza", false, me, ephemerals(9))
	env("stanza02_unused_after_good", "rule 5: the reader's stanza, then a P-256 ephemeral key that no type 0x03 stanza uses", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.shared(p256).ephemeral()} })
	env("stanza02_unused_before_good", "rule 5: an X25519 ephemeral key that no type 0x03 stanza uses, then the reader's stanza", false, me,
		func(g *gen) []stanza { return []stanza{g.shared(x25519).ephemeral(), g.hpke(me)} })
	env("stanza02_unused_unknown_suite", "rule 5: the reader's stanza, then an ephemeral key of unknown suite 0x0011 that no type 0x03 stanza uses", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), raw(0x02, cat(u16(0x0011), g.rand(97)))} })

	// Rule 6: type 0x03.
	env("stanza03_orphan_after_good", "rule 6: the reader's X25519 stanza, then a P-256 type 0x03 stanza with no type 0x02", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.shared(p256).to(pb)} })
	env("stanza03_orphan_before_good", "rule 6: a P-256 type 0x03 stanza with no type 0x02, then the reader's X25519 stanza", false, me,
		func(g *gen) []stanza { return []stanza{g.shared(p256).to(pb), g.hpke(me)} })
	env("stanza03_orphan_same_suite", "rule 6: another X25519 recipient's type 0x03 stanza with no type 0x02, then the reader's type 0x01 stanza", false, me,
		func(g *gen) []stanza { return []stanza{g.shared(x25519).to(b), g.hpke(me)} })
	env("stanza03_orphan_anonymous", "rule 6: anonymous; the reader's stanza, then a type 0x03 stanza of its suite with no type 0x02", true, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.shared(x25519).to(b)} })
	env("stanza03_before_its_ephemeral", "rule 6: the reader's stanza, then a P-256 type 0x03 stanza, then the P-256 type 0x02 it needs", false, me,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{g.hpke(me), sh.to(pb), sh.ephemeral()}
		})
	env("stanza03_mine_before_its_ephemeral", "rule 6: the reader's type 0x03 stanza, then the type 0x02 it needs, then another recipient's type 0x03", false, me,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.to(me), sh.ephemeral(), sh.to(b)}
		})
	env("stanza03_ephemeral_of_other_suite", "rule 6: a P-256 type 0x02 and two type 0x03 stanzas using it, one of them X25519 (the reader's)", false, me,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{sh.ephemeral(), sh.to(pb), g.shared(x25519).to(me)}
		})
	env("stanza03_long_other", "rule 6: the reader's stanza, then a P-256 ephemeral key and a type 0x03 stanza with one byte too many", false, me,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{g.hpke(me), sh.ephemeral(), grow(sh.to(pb), 1)}
		})
	env("stanza03_short_mine_before_good", "rule 6: an X25519 ephemeral key, a type 0x03 stanza for another recipient with one byte too few, then the reader's type 0x03", false, me,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), grow(sh.to(b), -1), sh.to(me)}
		})
	env("stanza03_key_id_in_anonymous", "rule 6: anonymous; an ephemeral key, a type 0x03 stanza with a key identifier (L = 58), then the reader's type 0x03", true, me,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), withID(sh.to(b), b.id), sh.to(me)}
		})
	env("stanza03_mlkem", "rule 6: the reader's ML-KEM-768+X25519 stanza, then a type 0x03 stanza of ML-KEM-768+X25519 (L = 58)", false, alice(mlkem),
		func(g *gen) []stanza {
			return []stanza{g.hpke(alice(mlkem)), raw(0x03, cat(u16(kemMLKEM), bob(mlkem).id, g.rand(ctSize)))}
		})
	env("stanza03_orphan_unknown_suite", "rule 6: the reader's stanza, then a type 0x03 stanza of unknown suite 0x0011 (L = 58) with no type 0x02", false, me,
		func(g *gen) []stanza {
			return []stanza{g.hpke(me), raw(0x03, cat(u16(0x0011), g.rand(keyIDSize+ctSize)))}
		})

	// Rule 7: type 0x04.
	ch := func(g *gen) stanza { return g.channel(b, carol(x25519), 3).stanza() }
	env("stanza04_long_after_good", "rule 7: the reader's stanza, then a channel stanza with L = 95", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), grow(ch(g), 1)} })
	env("stanza04_short_before_good", "rule 7: a channel stanza with L = 93, then the reader's stanza", false, me,
		func(g *gen) []stanza { return []stanza{grow(ch(g), -1), g.hpke(me)} })
	env("stanza04_anonymous_after_good", "rule 7: anonymous; the reader's stanza, then a channel stanza", true, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), ch(g)} })
	env("stanza04_anonymous_before_good", "rule 7: anonymous; a channel stanza, then the reader's stanza", true, me,
		func(g *gen) []stanza { return []stanza{ch(g), g.hpke(me)} })
	env("stanza04_mlkem", "rule 7: the reader's ML-KEM-768+X25519 stanza, then a channel stanza (L = 94) of ML-KEM-768+X25519", false, alice(mlkem),
		func(g *gen) []stanza {
			return []stanza{g.hpke(alice(mlkem)), raw(0x04, cat(u16(kemMLKEM), bob(mlkem).id, g.rand(92-keyIDSize)))}
		})

	// Rule 8: too short to hold the suite and key identifier.
	short := func(name string, typ byte, body []byte, anon bool, where string) {
		env(name, fmt.Sprintf("rule 8: the reader's stanza, then a type 0x%02x stanza with L = %d%s", typ, len(body), where), anon, me,
			func(g *gen) []stanza { return []stanza{g.hpke(me), raw(typ, body)} })
	}
	short("stanza01_empty", 0x01, nil, false, "")
	short("stanza01_one_byte", 0x01, []byte{0x00}, false, "")
	short("stanza01_one_byte_anonymous", 0x01, []byte{0x00}, true, " (anonymous)")
	short("stanza01_no_room_for_key_id", 0x01, cat(u16(0x0011), make([]byte, keyIDSize-1)), false, " (suite 0x0011, 7 bytes of key identifier)")
	short("stanza02_one_byte", 0x02, []byte{0x00}, false, "")
	short("stanza03_empty", 0x03, nil, false, "")
	short("stanza03_no_room_for_key_id", 0x03, cat(u16(0x0011), make([]byte, keyIDSize-1)), false, " (suite 0x0011, 7 bytes of key identifier)")
	short("stanza04_one_byte", 0x04, []byte{0x00}, false, "")
}

// limitVectors: rules 9 to 11.
func limitVectors(k *kit) {
	b := bob(x25519)
	many := func(name, class, comment string, anon bool, n int) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, anon)
			for i := range n - 1 {
				body := u16(0xffff)
				if !anon {
					body = cat(body, i2osp(uint64(i), keyIDSize))
				}
				e.add(raw(0x01, body))
			}
			e.add(g.hpke(me))
			e.payload = g.text()
			v := open(class, comment, e, me)
			v.Compressed = true
			return v
		})
	}
	many("recipients_10000", Success, "rule 9: 10 000 recipient stanzas, the most allowed: 9 999 of unknown suite 0xffff (distinct key identifiers), then the reader's", false, 10000)
	many("recipients_10001", Malformed, "rule 9: 10 001 recipient stanzas: 10 000 of unknown suite 0xffff (distinct key identifiers), then the reader's", false, 10001)
	many("recipients_10000_anonymous", Success, "rule 9: anonymous; 10 000 recipient stanzas: 9 999 of unknown suite 0xffff, then the reader's", true, 10000)
	many("recipients_10001_anonymous", Malformed, "rule 9: anonymous; 10 001 recipient stanzas: 10 000 of unknown suite 0xffff, then the reader's", true, 10001)

	// Rule 10: one (suite, key identifier) per recipient stanza.
	env := k.stanzas
	mine := []*key{me}
	env("duplicate_mine", Malformed, "rule 10: two good type 0x01 stanzas for the reader", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.hpke(me)} })
	env("duplicate_other_after_good", Malformed, "rule 10: the reader's stanza, then two type 0x01 stanzas for another recipient", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.hpke(b), g.hpke(b)} })
	env("duplicate_other_before_good", Malformed, "rule 10: two type 0x01 stanzas for another recipient, then the reader's", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(b), g.hpke(b), g.hpke(me)} })
	env("duplicate_hpke_and_shared", Malformed, "rule 10: a type 0x02 and the reader's type 0x03 stanza, then a type 0x01 stanza for the reader", false, mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), g.hpke(me)}
		})
	env("duplicate_shared_other", Malformed, "rule 10: the reader's stanza, then a P-256 type 0x02 and two type 0x03 stanzas for one recipient", false, mine,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{g.hpke(me), sh.ephemeral(), sh.to(bob(p256)), sh.to(bob(p256))}
		})
	env("duplicate_hpke_and_channel", Malformed, "rule 10: the reader's stanza, then a type 0x01 stanza for carol and a channel stanza from bob to carol", false, mine,
		func(g *gen) []stanza {
			return []stanza{g.hpke(me), g.hpke(carol(x25519)), g.channel(b, carol(x25519), 1).stanza()}
		})
	env("duplicate_channel_two_senders", Malformed, "rule 10: the reader's stanza, then channel stanzas from bob and from dave, both to carol", false, mine,
		func(g *gen) []stanza {
			return []stanza{g.hpke(me), g.channel(b, carol(x25519), 1).stanza(), g.channel(dave(x25519), carol(x25519), 1).stanza()}
		})
	env("duplicate_unknown_suite", Malformed, "rule 10: the reader's stanza, then two type 0x01 stanzas of unknown suite 0x0011 with one key identifier", false, mine,
		func(g *gen) []stanza {
			id := g.rand(keyIDSize)
			return []stanza{g.hpke(me), raw(0x01, cat(u16(0x0011), id, g.rand(97+ctSize))), raw(0x01, cat(u16(0x0011), id, g.rand(97+ctSize)))}
		})
	env("duplicate_key_id_other_suite", Success, "rule 10 does not apply: a type 0x01 stanza of unknown suite 0x0011 with the reader's key identifier, then the reader's", false, mine,
		func(g *gen) []stanza {
			return []stanza{raw(0x01, cat(u16(0x0011), me.id, g.rand(97+ctSize))), g.hpke(me)}
		})
	env("duplicate_anonymous", Success, "rule 10 does not apply to anonymous envelopes: two stanzas for one other recipient, then the reader's", true, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(b), g.hpke(b), g.hpke(me)} })

	// Rule 11: post-quantum and classical stanzas never mix, whichever
	// key reads the envelope.
	pq, pqb := alice(mlkem), bob(mlkem)
	env("mixed_pq_reader_classical_after", Malformed, "rule 11: the reader's ML-KEM-768+X25519 stanza, then an X25519 type 0x01 stanza", false, []*key{pq},
		func(g *gen) []stanza { return []stanza{g.hpke(pq), g.hpke(b)} })
	env("mixed_pq_reader_classical_before", Malformed, "rule 11: a P-256 type 0x01 stanza, then the reader's ML-KEM-768+X25519 stanza", false, []*key{pq},
		func(g *gen) []stanza { return []stanza{g.hpke(bob(p256)), g.hpke(pq)} })
	env("mixed_pq_reader_shared", Malformed, "rule 11: the reader's ML-KEM-768+X25519 stanza, then a secp256k1 type 0x02 and type 0x03 stanza", false, []*key{pq},
		func(g *gen) []stanza {
			sh := g.shared(secp256k1KEM)
			return []stanza{g.hpke(pq), sh.ephemeral(), sh.to(bob(secp256k1KEM))}
		})
	env("mixed_pq_reader_channel", Malformed, "rule 11: the reader's ML-KEM-768+X25519 stanza, then an X25519 channel stanza from bob to carol", false, []*key{pq},
		func(g *gen) []stanza { return []stanza{g.hpke(pq), g.channel(b, carol(x25519), 1).stanza()} })
	env("mixed_pq_reader_anonymous", Malformed, "rule 11: anonymous; an X25519 stanza, then the reader's ML-KEM-768+X25519 stanza", true, []*key{pq},
		func(g *gen) []stanza { return []stanza{g.hpke(b), g.hpke(pq)} })
	env("mixed_classical_reader_pq_after", Malformed, "rule 11: the reader's X25519 stanza, then an ML-KEM-768+X25519 stanza", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(me), g.hpke(pqb)} })
	env("mixed_classical_reader_pq_before", Malformed, "rule 11: an ML-KEM-768+X25519 stanza, then the reader's X25519 stanza", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(pqb), g.hpke(me)} })
	env("mixed_both_readers", Malformed, "rule 11: a reader with an ML-KEM-768+X25519 and an X25519 identity, each with a good stanza", false, []*key{pq, me},
		func(g *gen) []stanza { return []stanza{g.hpke(pq), g.hpke(me)} })
}

// anonymousVectors: rule 12, the trials an anonymous envelope may cost a
// reader (1 000 by default, the limit the runners use), and what an
// anonymous candidate that cannot open is (rule 13).
func anonymousVectors(k *kit) {
	// n type 0x01 stanzas of the reader's suite for nobody (random enc and
	// ciphertext), then the reader's: n + 1 trials per X25519 identity.
	many := func(name, class, comment string, n int, ids ...*key) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, true)
			for range n {
				e.add(raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))))
			}
			e.add(g.hpke(me))
			e.payload = g.text()
			return open(class, comment, e, ids...)
		})
	}
	many("anonymous_trials_1000", Success, "rule 12: anonymous; 999 X25519 stanzas for nobody, then the reader's: 1 000 trials, the most allowed", 999, me)
	many("anonymous_trials_1001", Unsupported, "rule 12: anonymous; 1 000 X25519 stanzas for nobody, then the reader's: 1 001 trials", 1000, me)
	many("anonymous_trials_two_identities", Unsupported, "rule 12: anonymous; 500 X25519 stanzas for nobody and the reader's, read with two X25519 identities: 1 002 trials", 500, me, bob(x25519))
	// Identities count as distinct public keys, a keyring's included.
	many("anonymous_trials_same_identity_twice", Success, "rule 12: anonymous; 600 X25519 stanzas for nobody and the reader's, read with the reader's identity given twice: one public key, 601 trials", 600, me, me)
	k.add("anonymous_trials_keyring", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, true)
		for range 500 {
			e.add(raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))))
		}
		e.add(g.hpke(me))
		e.payload = g.text()
		v := open(Unsupported, "rule 12: anonymous; 500 X25519 stanzas for nobody and the reader's, read with the reader's identity and a keyring of another X25519 identity: two public keys, 1 002 trials", e, me)
		return withKeyring(v, bob(x25519), carol(x25519), 0)
	})
	k.add("anonymous_trials_keyring_same_key", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, true)
		for range 600 {
			e.add(raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))))
		}
		e.add(g.hpke(me))
		e.payload = g.text()
		v := open(Success, "rule 12: anonymous; 600 X25519 stanzas for nobody and the reader's, read with the reader's identity and a keyring of the same identity: one public key, 601 trials", e, me)
		return withKeyring(v, me, bob(x25519), 0)
	})
	// Only the reader's suites count: 1 001 X25519 stanzas cost a P-256
	// reader no trial.
	k.add("anonymous_trials_other_suite", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, true)
		for range 1001 {
			e.add(raw(0x01, cat(u16(kemX25519), g.rand(x25519.nenc+ctSize))))
		}
		e.add(g.hpke(alice(p256)))
		e.payload = g.text()
		return open(Success, "rule 12: anonymous; 1 001 X25519 stanzas for nobody, then the P-256 reader's: one trial", e, alice(p256))
	})
	// Shared stanzas count one trial each, although they need one key
	// agreement between them.
	k.add("anonymous_trials_shared_1001", func(g *gen) *Vector {
		sh := g.shared(x25519)
		e := g.newEnvelope(aeadAESGCM, true).add(sh.ephemeral())
		for range 1000 {
			e.add(raw(0x03, cat(u16(kemX25519), g.rand(ctSize))))
		}
		e.add(sh.to(me))
		e.payload = g.text()
		return open(Unsupported, "rule 12: anonymous; an X25519 ephemeral key, 1 000 type 0x03 stanzas for nobody, then the reader's: 1 001 trials", e, me)
	})
	// An anonymous candidate that does not open is someone else's, even
	// when its key is invalid: not a recipient (rule 13), where a stanza
	// with the reader's identifier would be authentication (rule 14).
	k.stanzas("not_recipient_anonymous_invalid_enc", NotRecipient, "rule 13: anonymous; the only X25519 stanza has the all-zero enc, whose DH output is zero", true, []*key{me},
		func(g *gen) []stanza {
			return []stanza{edit(g.hpke(me), func(body []byte) []byte { copy(body[2:], make([]byte, 32)); return body })}
		})
	k.stanzas("not_recipient_anonymous_invalid_ephemeral", NotRecipient, "rule 13: anonymous; a P-256 type 0x02 ephemeral key off the curve and the reader's type 0x03 stanza", true, []*key{alice(p256)},
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{raw(0x02, cat(u16(kemP256), offCurve(bob(p256)))), sh.to(alice(p256))}
		})
}

// openingVectors: rules 13 and 14.
func openingVectors(k *kit) {
	b := bob(x25519)
	env := k.stanzas
	mine := []*key{me}
	env("not_recipient", NotRecipient, "rule 13: stanzas for bob and carol only", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(b), g.hpke(carol(x25519))} })
	env("not_recipient_other_suite", NotRecipient, "rule 13: a P-256 stanza only; the reader is X25519", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(bob(p256))} })
	env("not_recipient_shared", NotRecipient, "rule 13: an ephemeral key and type 0x03 stanzas for bob and carol only", false, mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(b), sh.to(carol(x25519))}
		})
	env("not_recipient_anonymous", NotRecipient, "rule 13: anonymous; stanzas of the reader's suite for bob and carol only", true, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(b), g.hpke(carol(x25519))} })
	env("not_recipient_anonymous_other_suite", NotRecipient, "rule 13: anonymous; a P-256 stanza only; the reader is X25519", true, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(bob(p256))} })
	env("not_recipient_pq", NotRecipient, "rule 13: an ML-KEM-768+X25519 stanza for bob only", false, []*key{alice(mlkem)},
		func(g *gen) []stanza { return []stanza{g.hpke(bob(mlkem))} })

	env("auth_wrong_key", Authentication, "rule 14: a stanza with the reader's key identifier, sealed to bob's key", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpkeWith(me, b, nil)} })
	env("auth_flipped_ciphertext", Authentication, "rule 14: the reader's stanza with a bit flipped in its ciphertext", false, mine,
		func(g *gen) []stanza {
			return []stanza{flipLast(g.hpke(me))}
		})
	env("auth_flipped_ciphertext_shared", Authentication, "rule 14: an ephemeral key and the reader's type 0x03 stanza with a bit flipped in its ciphertext", false, mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), flipLast(sh.to(me))}
		})
	env("auth_other_preamble", Authentication, "rule 14: the reader's stanza sealed with the preamble of another envelope (another nonce) as AAD", false, mine,
		func(g *gen) []stanza {
			s := g.hpke(me)
			return []stanza{func(e *envelope, pre []byte) (byte, []byte) { return s(e, flip(pre, 11)) }}
		})
	env("auth_wrong_file_key", Authentication, "rule 14: the reader's stanza opens to a file key that does not verify the header MAC", false, mine,
		func(g *gen) []stanza { return []stanza{g.hpkeWith(me, me, g.rand(32))} })
	env("auth_wrong_file_key_anonymous", Authentication, "rule 14: anonymous; the reader's only stanza opens to a file key that does not verify the header MAC", true, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(b), g.hpkeWith(me, me, g.rand(32))} })
	env("auth_mlkem_flipped_enc", Authentication, "rule 14: the reader's ML-KEM-768+X25519 stanza with a bit flipped in the ML-KEM ciphertext", false, []*key{alice(mlkem)},
		func(g *gen) []stanza {
			return []stanza{edit(g.hpke(alice(mlkem)), func(body []byte) []byte { return flip(body, 2+keyIDSize+100) })}
		})
	// A candidate that opens to a wrong file key is refused wherever it
	// is, whatever the other candidates hold (rule 14).
	wrongKey := func(g *gen) stanza { return g.hpkeWith(me, me, g.rand(32)) }
	env("auth_wrong_file_key_then_good_anonymous", Authentication, "rule 14: anonymous; a stanza that opens for the reader to a wrong file key, then the reader's good stanza", true, mine,
		func(g *gen) []stanza { return []stanza{wrongKey(g), g.hpke(me)} })
	env("auth_good_then_wrong_file_key_anonymous", Authentication, "rule 14: anonymous; the reader's good stanza, then a stanza that opens for the reader to a wrong file key", true, mine,
		func(g *gen) []stanza { return []stanza{g.hpke(me), wrongKey(g)} })
	env("auth_wrong_file_key_then_other_identity", Authentication, "rule 14: the first identity's stanza opens to a wrong file key, the second identity's is good", false, []*key{me, alice(p256)},
		func(g *gen) []stanza { return []stanza{wrongKey(g), g.hpke(alice(p256))} })
	env("auth_other_identity_then_wrong_file_key", Authentication, "rule 14: the second identity's stanza is good and comes first, the first identity's opens to a wrong file key", false, []*key{me, alice(p256)},
		func(g *gen) []stanza { return []stanza{g.hpke(alice(p256)), wrongKey(g)} })
	five := []*key{me, alice(p256), alice(secp256k1KEM), bob(x25519), bob(p256)}
	for _, at := range []int{0, 2, 4} {
		env(fmt.Sprintf("auth_four_wrong_file_keys_good_at_%d", at), Authentication,
			fmt.Sprintf("rule 14: five identities; four stanzas open to wrong file keys, the good one is stanza %d", at), false, five,
			func(g *gen) []stanza {
				var ss []stanza
				for i, id := range five {
					if i == at {
						ss = append(ss, g.hpke(id))
					} else {
						ss = append(ss, g.hpkeWith(id, id, g.rand(32)))
					}
				}
				return ss
			})
	}

	// Invalid ephemeral keys (all with valid lengths).
	invalid := []struct {
		name string
		k    *kem
		enc  []byte
		what string
	}{
		{"p256", p256, offCurve(bob(p256)), "a point off the curve"},
		{"secp256k1", secp256k1KEM, offCurve(bob(secp256k1KEM)), "a point off the curve"},
		{"x25519", x25519, make([]byte, 32), "the all-zero point, whose DH output is zero"},
	}
	for _, c := range invalid {
		env("auth_invalid_enc_"+c.name, Authentication, "rule 14: the reader's "+c.name+" type 0x01 stanza with enc "+c.what, false, []*key{alice(c.k)},
			func(g *gen) []stanza {
				return []stanza{edit(g.hpke(alice(c.k)), func(body []byte) []byte {
					copy(body[2+keyIDSize:], c.enc)
					return body
				})}
			})
		env("auth_invalid_ephemeral_"+c.name, Authentication, "rule 14: a "+c.name+" type 0x02 ephemeral key that is "+c.what+", and the reader's type 0x03 stanza", false, []*key{alice(c.k)},
			func(g *gen) []stanza {
				sh := g.shared(c.k)
				return []stanza{raw(0x02, cat(u16(int(c.k.id)), c.enc)), sh.to(alice(c.k))}
			})
	}

	k.add("auth_header_mac", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(b), g.hpke(me))
		e.payload = g.text()
		enc := e.encode()
		return result(Authentication, "rule 14: a bit flipped in the header MAC", flip(enc.bytes, enc.header+31), nil, me)
	})
	k.add("auth_header_bit_flipped", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me), g.hpke(b))
		e.payload = g.text()
		enc := e.encode()
		return result(Authentication, "rule 14: a bit flipped in another recipient's stanza after the reader's (the header MAC fails)",
			flip(enc.bytes, enc.header-1), nil, me)
	})
}

// skipVectors: unknown stanza types and suites are skipped.
func skipVectors(k *kit) {
	env := func(name, comment string, anon bool, r *key, f func(g *gen) []stanza) {
		k.stanzas(name, Success, comment, anon, []*key{r}, f)
	}
	unknownTypes := func(g *gen, r *key) []stanza {
		return []stanza{raw(0x00, nil), raw(0x05, []byte{0x01}), g.hpke(r), raw(0x7f, g.rand(100)), raw(0xff, g.rand(2000))}
	}
	env("skip_unknown_types", "stanzas of unknown types 0x00, 0x05, 0x7f and 0xff around the reader's are skipped", false, me,
		func(g *gen) []stanza { return unknownTypes(g, me) })
	env("skip_unknown_types_anonymous", "anonymous; stanzas of unknown types 0x00, 0x05, 0x7f and 0xff around the reader's are skipped", true, me,
		func(g *gen) []stanza { return unknownTypes(g, me) })
	env("skip_unknown_types_pq", "stanzas of unknown types around an ML-KEM-768+X25519 reader's are skipped", false, alice(mlkem),
		func(g *gen) []stanza { return unknownTypes(g, alice(mlkem)) })
	unknownSuites := func(g *gen, anon bool) []stanza {
		id := func() []byte {
			if anon {
				return nil
			}
			return g.rand(keyIDSize)
		}
		return []stanza{
			raw(0x01, cat(u16(0x0011), id(), g.rand(97+ctSize))),
			raw(0x02, cat(u16(0x0012), g.rand(133))),
			raw(0x03, cat(u16(0x0012), id(), g.rand(ctSize))),
			raw(0x01, cat(u16(0xffff), id())),
		}
	}
	env("skip_unknown_suites", "type 0x01, 0x02 and 0x03 stanzas of unknown suites 0x0011, 0x0012 and 0xffff before the reader's are skipped", false, me,
		func(g *gen) []stanza { return append(unknownSuites(g, false), g.hpke(me)) })
	env("skip_unknown_suites_anonymous", "anonymous; type 0x01, 0x02 and 0x03 stanzas of unknown suites before the reader's are skipped", true, me,
		func(g *gen) []stanza { return append(unknownSuites(g, true), g.hpke(me)) })
	env("skip_unknown_suites_pq", "stanzas of unknown suites are neither post-quantum nor classical: an ML-KEM-768+X25519 reader skips them", false, alice(mlkem),
		func(g *gen) []stanza { return append(unknownSuites(g, false), g.hpke(alice(mlkem))) })
	env("skip_unknown_suite_ephemeral_5_bytes", "rule 8: a type 0x02 stanza has no key identifier: one of unknown suite 0x0013 with L = 5 (its suite and 3 bytes), in an envelope with key identifiers, and the type 0x03 stanza that uses it, before the reader's, are skipped", false, me,
		func(g *gen) []stanza {
			return []stanza{raw(0x02, cat(u16(0x0013), g.rand(3))), raw(0x03, cat(u16(0x0013), g.rand(keyIDSize), g.rand(ctSize))), g.hpke(me)}
		})
	env("skip_unknown_suite_channel", "a type 0x04 stanza (L = 94) of unknown suite 0x0011 after the reader's is skipped", false, me,
		func(g *gen) []stanza { return []stanza{g.hpke(me), raw(0x04, cat(u16(0x0011), g.rand(92)))} })
}

// channelVectors: type 0x04 with a Keyring.
func channelVectors(k *kit) {
	a, b := alice(x25519), bob(x25519)
	ch := func(name, class, comment string, keyring, stanza uint32, peer *key, f func(c *channel)) {
		k.add(name, func(g *gen) *Vector {
			c := g.channel(b, a, stanza)
			if f != nil {
				f(c)
			}
			e := g.newEnvelope(aeadAESGCM, false).add(c.stanza())
			e.payload = g.text()
			return withKeyring(open(class, comment, e), a, peer, keyring)
		})
	}
	ch("channel_epoch_zero", Success, "a channel stanza at epoch 0; keyring at epoch 0", 0, 0, b, nil)
	ch("channel_previous_epoch", Success, "a channel stanza at epoch 6; keyring at epoch 7 accepts e - 1", 7, 6, b, nil)
	ch("channel_last_epochs", Success, "a channel stanza at epoch 2^32 - 2; keyring at epoch 2^32 - 1", math.MaxUint32, math.MaxUint32-1, b, nil)
	// A channel stanza the reader has no key for (its epoch is not
	// accepted, its sender is not a peer, or there is no keyring) is not
	// a stanza for the reader: no key agreement is tried (rule 13).
	ch("channel_next_epoch", NotRecipient, "rule 13: a channel stanza at epoch 8; keyring at epoch 7 accepts only 7 and 6", 7, 8, b, nil)
	ch("channel_old_epoch", NotRecipient, "rule 13: a channel stanza at epoch 5; keyring at epoch 7 accepts only 7 and 6", 7, 5, b, nil)
	ch("channel_epoch_wrap", NotRecipient, "rule 13: a channel stanza at epoch 2^32 - 1; keyring at epoch 0 accepts only 0 (nothing wraps)", 0, math.MaxUint32, b, nil)
	ch("channel_epoch_wrap_forward", NotRecipient, "rule 13: a channel stanza at epoch 0; keyring at epoch 2^32 - 1 accepts only 2^32 - 1 and 2^32 - 2", math.MaxUint32, 0, b, nil)
	ch("channel_unknown_sender", NotRecipient, "rule 13: a channel stanza from bob; the keyring knows only dave", 0, 0, dave(x25519), nil)
	// A channel stanza the reader has a key for but that does not open
	// is a stanza for it that fails (rule 14).
	ch("channel_key_of_other_aead", Authentication, "rule 14: a channel stanza in an AES-256-GCM envelope whose key has AEAD id 0x0003 in its info", 0, 0, b,
		func(c *channel) { c.infoAEAD = aeadChaCha })
	k.add("channel_flipped_ciphertext", func(g *gen) *Vector {
		c := g.channel(b, a, 0)
		e := g.newEnvelope(aeadAESGCM, false).add(flipLast(c.stanza()))
		e.payload = g.text()
		return withKeyring(open(Authentication, "rule 14: a channel stanza with a bit flipped in its ciphertext", e), a, b, 0)
	})
	k.add("channel_reversed_direction", func(g *gen) *Vector {
		// Sealed from alice to bob but addressed from bob to alice: the
		// same DH, the other direction's key.
		c := g.channel(a, b, 0)
		e := g.newEnvelope(aeadAESGCM, false).add(edit(c.stanza(), func(body []byte) []byte {
			return cat(body[:2], a.id, b.id, body[2+2*keyIDSize:])
		}))
		e.payload = g.text()
		return withKeyring(open(Authentication, "rule 14: a channel stanza addressed from bob to alice but keyed for alice to bob", e), a, b, 0)
	})
	k.add("channel_without_keyring", func(g *gen) *Vector {
		c := g.channel(b, a, 0)
		e := g.newEnvelope(aeadAESGCM, false).add(c.stanza())
		e.payload = g.text()
		return open(NotRecipient, "rule 13: a channel stanza for alice, read with alice's identity and no keyring", e, a)
	})
	k.add("channel_keyring_opens_hpke", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(b), g.hpke(a))
		e.payload = g.text()
		return withKeyring(open(Success, "a keyring's identity opens ordinary type 0x01 stanzas", e), a, b, 0)
	})
}

// armorVectors: FORMAT.md, "Text forms".
func armorVectors(k *kit) {
	text := func(name, class, comment string, f func(env []byte) string) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			// 302 bytes: a 472-byte envelope, whose base64 ends in "==".
			e.payload = bytes.Repeat(g.text(), 302/len(g.text())+1)[:302]
			v := result(class, comment, []byte(f(e.encode().bytes)), e.payload, me)
			v.Armored = true
			return v
		})
	}
	text("armor_good", Success, "armor: 64-character lines ended by LF", func(env []byte) string { return armor(env, 64, "\n") })
	text("armor_crlf", Success, "armor: lines ended by CRLF are accepted", func(env []byte) string { return armor(env, 64, "\r\n") })
	text("armor_whitespace_after_end", Success, "armor: whitespace after the end line is accepted",
		func(env []byte) string { return armor(env, 64, "\n") + " \t\n\n" })
	k.add("armor_full_last_line", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
		// 93-byte stanza: header 122, MAC 32, one chunk of n + 16 bytes;
		// a multiple of 48 bytes armors into full lines and no padding.
		e.payload = bytes.Repeat([]byte("x"), 48*10-122-32-16)
		env := e.encode().bytes
		if len(env)%48 != 0 {
			panic("armor_full_last_line")
		}
		v := result(Success, "armor: the last line holds 64 characters", []byte(armor(env, 64, "\n")), e.payload, me)
		v.Armored = true
		return v
	})
	lines := func(env []byte) []string { return strings.Split(armor(env, 64, "\n"), "\n") }
	join := func(ls []string) string { return strings.Join(ls, "\n") }
	text("armor_bad_character", Malformed, "armor: a character outside the base64 alphabet",
		func(env []byte) string {
			ls := lines(env)
			ls[2] = ls[2][:10] + "!" + ls[2][11:]
			return join(ls)
		})
	text("armor_short_line", Malformed, "armor: lines of 60 characters", func(env []byte) string { return armor(env, 60, "\n") })
	text("armor_long_line", Malformed, "armor: lines of 76 characters", func(env []byte) string { return armor(env, 76, "\n") })
	text("armor_blank_line", Malformed, "armor: a blank line between two lines of base64",
		func(env []byte) string {
			ls := lines(env)
			return join(slices.Insert(ls, 2, ""))
		})
	text("armor_garbage_after_end", Malformed, "armor: a line of text after the end line",
		func(env []byte) string { return armor(env, 64, "\n") + "garbage\n" })
	text("armor_missing_padding", Malformed, "armor: the last line without its = padding",
		func(env []byte) string { return strings.Replace(armor(env, 64, "\n"), "=", "", -1) })
	text("armor_noncanonical_padding", Malformed, "armor: the last base64 character before = has unused bits set",
		func(env []byte) string {
			s := armor(env, 64, "\n")
			i := strings.IndexByte(s, '=') - 1
			const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
			c := strings.IndexByte(alphabet, s[i])
			return s[:i] + string(alphabet[c|1]) + s[i+1:]
		})
	text("armor_bad_begin_line", Malformed, "armor: the begin line in lower case",
		func(env []byte) string {
			return strings.Replace(armor(env, 64, "\n"), "BEGIN FANSEAL ENVELOPE", "BEGIN fanseal ENVELOPE", 1)
		})
	text("armor_missing_end_line", Truncated, "armor: no end line",
		func(env []byte) string {
			return strings.Replace(armor(env, 64, "\n"), "-----END FANSEAL ENVELOPE-----\n", "", 1)
		})
	text("armor_tampered_envelope", Authentication, "armor: valid armor of an envelope with a bit flipped in its header MAC",
		func(env []byte) string {
			return armor(flip(env, 122+31), 64, "\n")
		})

	// What an editor adds around the text, and age's armor reader
	// tolerates too; and what it refuses.
	good := func(env []byte) string { return armor(env, 64, "\n") }
	text("armor_blank_line_before", Success, "armor: a blank line before the begin line", func(env []byte) string { return "\n" + good(env) })
	text("armor_white_space_lines_before", Success, "armor: lines of white space (space, tab, no-break space U+00A0, CR) before the begin line",
		func(env []byte) string { return " \t\n\u00a0\n\r\n" + good(env) })
	text("armor_1024_bytes_before", Success, "armor: 1 024 bytes of white space lines (1 023 spaces and a LF) before the begin line, the most allowed",
		func(env []byte) string { return strings.Repeat(" ", 1023) + "\n" + good(env) })
	text("armor_1025_bytes_before", Malformed, "armor: 1 025 bytes of white space lines (1 024 spaces and a LF) before the begin line",
		func(env []byte) string { return strings.Repeat(" ", 1024) + "\n" + good(env) })
	text("armor_text_before", Malformed, "armor: a line of text before the begin line",
		func(env []byte) string { return "an envelope:\n" + good(env) })
	text("armor_space_before_begin", Malformed, "armor: a space at the start of the begin line",
		func(env []byte) string { return " " + good(env) })
	text("armor_mixed_line_ends", Success, "armor: the first two lines ended by CRLF, the others by LF",
		func(env []byte) string { return strings.Replace(good(env), "\n", "\r\n", 2) })
	text("armor_no_line_end_after_end", Success, "armor: the input ends right after the end line, with no LF",
		func(env []byte) string { return strings.TrimSuffix(good(env), "\n") })
	text("armor_1023_bytes_after", Success, "armor: 1 023 bytes of white space after the end line, the most allowed",
		func(env []byte) string { return good(env) + strings.Repeat("\n", 1023) })
	text("armor_1024_bytes_after", Malformed, "armor: 1 024 bytes of white space after the end line",
		func(env []byte) string { return good(env) + strings.Repeat("\n", 1024) })
	text("armor_trailing_space", Malformed, "armor: a space at the end of the first line of base64",
		func(env []byte) string {
			ls := lines(env)
			ls[1] += " "
			return join(ls)
		})
	text("armor_cr_cr_lf", Malformed, "armor: lines ended by CR CR LF",
		func(env []byte) string { return armor(env, 64, "\r\r\n") })
	text("armor_crs_inside_lines", Malformed, "armor: lines of 60 characters with 4 CRs in the middle (64 columns), which a base64 decoder skips",
		func(env []byte) string {
			b64 := base64.StdEncoding.EncodeToString(env)
			out := "-----BEGIN FANSEAL ENVELOPE-----\n"
			for len(b64) > 60 {
				out += b64[:30] + "\r\r\r\r" + b64[30:60] + "\n"
				b64 = b64[60:]
			}
			return out + b64 + "\n-----END FANSEAL ENVELOPE-----\n"
		})
	text("armor_second_end_line", Malformed, "armor: a second end line after the end line",
		func(env []byte) string { return good(env) + "-----END FANSEAL ENVELOPE-----\n" })
	k.add("armor_line_of_crs", func(g *gen) *Vector {
		e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
		e.payload = bytes.Repeat([]byte("x"), 48*10-122-32-16) // full lines only
		ls := strings.Split(armor(e.encode().bytes, 64, "\n"), "\n")
		ls = slices.Insert(ls, len(ls)-2, strings.Repeat("\r", 65))
		v := result(Malformed, "armor: a line of 65 CRs (64 before its LF, a base64 decoder skips them) before the end line, after full lines", []byte(strings.Join(ls, "\n")), nil, me)
		v.Armored = true
		return v
	})
	text("armor_cr_in_last_line", Malformed, "armor: a CR after the fourth character of the last, short, line of base64, which a base64 decoder skips",
		func(env []byte) string {
			ls := lines(env)
			last := len(ls) - 3 // the end line and the empty string after its LF follow
			ls[last] = ls[last][:4] + "\r" + ls[last][4:]
			return join(ls)
		})
	text("armor_cr_after_end_line", Success, "armor: the end line ended by a lone CR, at the end of the input",
		func(env []byte) string { return good(env) + "\r" })
	text("armor_crlf_lines_before", Success, "armor: 1 024 empty lines ended by CRLF before the begin line (2 048 bytes, 1 024 counted: a CR before a LF is not)",
		func(env []byte) string { return strings.Repeat("\r\n", 1024) + good(env) })
	text("armor_1025_crlf_lines_before", Malformed, "armor: 1 025 empty lines ended by CRLF before the begin line (1 025 bytes counted)",
		func(env []byte) string { return strings.Repeat("\r\n", 1025) + good(env) })
	// Input that ends inside a line: the line is judged as what it is.
	text("armor_cut_inside_begin_line", Malformed, "armor: the input ends after the first 20 bytes of the begin line",
		func(env []byte) string { return good(env)[:20] })
	text("armor_cut_after_begin_line", Truncated, "armor: the input ends right after the begin line, with no LF",
		func(env []byte) string { return lines(env)[0] })
	text("armor_cut_inside_end_line", Malformed, "armor: the input ends inside the end line, after its first 16 bytes",
		func(env []byte) string {
			s := good(env)
			return s[:strings.LastIndex(s, "-----END")+16]
		})
	text("armor_cut_inside_line", Malformed, "armor: the input ends after 30 characters of the third line of base64, which is not a multiple of 4",
		func(env []byte) string { return join(lines(env)[:3]) + "\n" + lines(env)[3][:30] })
	text("armor_cut_inside_line_at_4", Truncated, "armor: the input ends after 32 characters of the third line of base64, which read as a short last line with no end line after it",
		func(env []byte) string { return join(lines(env)[:3]) + "\n" + lines(env)[3][:32] })
	k.add("armor_empty", func(g *gen) *Vector {
		v := result(Truncated, "armor: the begin line and the end line, nothing between: an empty envelope (rule 3)",
			[]byte("-----BEGIN FANSEAL ENVELOPE-----\n-----END FANSEAL ENVELOPE-----\n"), nil, me)
		v.Armored = true
		return v
	})

	// A fault in the text after the header is seen by a reader that is not
	// a recipient as by one that is: the text is decoded before the
	// envelope is opened.
	other := carol(x25519)
	notMine := func(name, class, comment string, f func(env []byte) string) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(me))
			e.payload = bytes.Repeat(g.text(), 302/len(g.text())+1)[:302]
			v := result(class, comment+", read by a reader that is not a recipient", []byte(f(e.encode().bytes)), nil, other)
			v.Armored = true
			return v
		})
	}
	notMine("armor_missing_padding_not_recipient", Malformed, "armor: the last line without its = padding",
		func(env []byte) string { return strings.Replace(good(env), "=", "", -1) })
	notMine("armor_noncanonical_padding_not_recipient", Malformed, "armor: the last base64 character before = has unused bits set",
		func(env []byte) string {
			s := good(env)
			i := strings.IndexByte(s, '=') - 1
			const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
			return s[:i] + string(alphabet[strings.IndexByte(alphabet, s[i])|1]) + s[i+1:]
		})
	notMine("armor_garbage_after_end_not_recipient", Malformed, "armor: a line of text after the end line",
		func(env []byte) string { return good(env) + "garbage\n" })
	notMine("armor_second_end_line_not_recipient", Malformed, "armor: a second end line after the end line",
		func(env []byte) string { return good(env) + "-----END FANSEAL ENVELOPE-----\n" })
	notMine("armor_missing_end_line_not_recipient", Truncated, "armor: no end line",
		func(env []byte) string { return strings.Replace(good(env), "-----END FANSEAL ENVELOPE-----\n", "", 1) })
	notMine("armor_cut_not_recipient", Truncated, "armor: the text ends after its fourth line of base64, past the header",
		func(env []byte) string { return strings.Join(lines(env)[:5], "\n") + "\n" })
}

// keyTextVectors: FORMAT.md, "Text forms": identity and recipient text
// that a reader refuses. An identity vector's envelope is sealed to the key
// the text would denote if a reader accepted it.
func keyTextVectors(k *kit) {
	identity := func(name, comment string, r *key, text string) {
		k.add(name, func(g *gen) *Vector {
			v := &Vector{Expect: InvalidKey, Comments: []string{comment}, Identities: []string{text}}
			if r != nil {
				e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(r))
				e.payload = g.text()
				v.Body = e.encode().bytes
			}
			return v
		})
	}
	recipient := func(name, comment, text string) {
		k.add(name, func(g *gen) *Vector {
			return &Vector{Expect: InvalidKey, Comments: []string{comment}, Recipients: []string{text}}
		})
	}
	withSum := func(text string, sum []byte) string {
		i := strings.LastIndexByte(text, '_') + 1
		data, err := b32.DecodeString(strings.ToUpper(text[i:]))
		if err != nil {
			panic(err)
		}
		copy(data[len(data)-4:], sum)
		s := b32.EncodeToString(data)
		if text[i] >= 'a' {
			s = strings.ToLower(s)
		}
		return text[:i] + s
	}
	id, p := me.identity(), alice(p256)
	identity("key_identity_bad_checksum", "identity text with its checksum replaced by zeros", me, withSum(id, []byte{0, 0, 0, 0}))
	identity("key_identity_lower_case", "identity text in lower case", me, strings.ToLower(id))
	identity("key_identity_lower_case_suite", "identity text with its suite in lower case (checksum of the upper-case text)", me,
		strings.Replace(id, "_X25519_", "_x25519_", 1))
	identity("key_identity_lower_case_base32", "identity text with its base32 part in lower case", me,
		identityPrefix(x25519)+strings.ToLower(strings.TrimPrefix(id, identityPrefix(x25519))))
	identity("key_identity_noncanonical_x25519", "X25519 identity text whose last base32 character has a padding bit set", me, setPadBit(id))
	identity("key_identity_noncanonical_p256", "P-256 identity text whose last base32 character has a padding bit set", p, setPadBit(p.identity()))
	identity("key_identity_padding", "identity text with base32 padding", me, id+"======")
	identity("key_identity_unknown_suite", "identity text of unknown suite X448 with a valid checksum", nil,
		keyText("FANSEAL_SECRET_X448_", draw("x448", 56)))
	identity("key_identity_short", "X25519 identity text of a 31-byte key with a valid checksum", nil,
		keyText(identityPrefix(x25519), me.sk[:31]))
	identity("key_identity_p256_zero", "P-256 identity text of the scalar 0", nil, keyText(identityPrefix(p256), make([]byte, 32)))
	identity("key_identity_p256_order", "P-256 identity text of the scalar n (the group order)", nil,
		keyText(identityPrefix(p256), hexBytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")))
	identity("key_identity_secp256k1_order", "secp256k1 identity text of the scalar n (the group order)", nil,
		keyText(identityPrefix(secp256k1KEM), hexBytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")))
	identity("key_identity_mlkem_short", "ML-KEM-768+X25519 identity text of a 31-byte seed", nil,
		keyText(identityPrefix(mlkem), alice(mlkem).sk[:31]))

	r := me.recipient()
	recipient("key_recipient_bad_checksum", "recipient text with its checksum replaced by zeros", withSum(r, []byte{0, 0, 0, 0}))
	recipient("key_recipient_upper_case", "recipient text in upper case", strings.ToUpper(r))
	recipient("key_recipient_noncanonical_x25519", "X25519 recipient text whose last base32 character has a padding bit set", setPadBit(r))
	recipient("key_recipient_noncanonical_p256", "P-256 recipient text whose last base32 character has a padding bit set", setPadBit(p.recipient()))
	recipient("key_recipient_unknown_suite", "recipient text of unknown suite x448 with a valid checksum",
		strings.ToLower(keyText("fanseal_x448_", draw("x448 public", 56))))
	lower := func(prefix string, key []byte) string { return strings.ToLower(keyText(prefix, key)) }
	compressed := func(k *kem) []byte {
		pk := alice(k).pk
		return cat([]byte{2 + pk[64]&1}, pk[1:33])
	}
	recipient("key_recipient_p256_off_curve", "P-256 recipient text of a point off the curve, valid checksum", lower(recipientPrefix(p256), offCurve(alice(p256))))
	recipient("key_recipient_p256_compressed", "P-256 recipient text of a compressed point, valid checksum", lower(recipientPrefix(p256), compressed(p256)))
	recipient("key_recipient_secp256k1_off_curve", "secp256k1 recipient text of a point off the curve, valid checksum",
		lower(recipientPrefix(secp256k1KEM), offCurve(alice(secp256k1KEM))))
	recipient("key_recipient_secp256k1_compressed", "secp256k1 recipient text of a compressed point, valid checksum",
		lower(recipientPrefix(secp256k1KEM), compressed(secp256k1KEM)))
	recipient("key_recipient_x25519_short", "X25519 recipient text of 31 bytes, valid checksum", lower(recipientPrefix(x25519), me.pk[:31]))

	// X25519 public keys that are not the canonical encoding of their
	// point, or are of low order (FORMAT.md, "Text forms"), in both
	// spellings.
	x := func(le string) []byte { return hexBytes(le) }
	bit255 := cat(me.pk[:31], []byte{me.pk[31] | 0x80})
	ninePlusP := x("f6ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f") // 9 + p
	lowOrder := []struct{ name, le string }{
		{"zero", "0000000000000000000000000000000000000000000000000000000000000000"},
		{"one", "0100000000000000000000000000000000000000000000000000000000000000"},
		{"p_minus_1", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"},
		{"order_8_e0eb", "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"},
		{"order_8_5f9c", "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"},
		{"p", "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"}, // 0 + p
	}
	recipient("key_recipient_x25519_bit_255", "X25519 recipient text of the reader's key with bit 255 set, valid checksum", lower(recipientPrefix(x25519), bit255))
	recipient("key_recipient_x25519_9_plus_p", "X25519 recipient text of u = 9 + p, the base point not reduced modulo p, valid checksum", lower(recipientPrefix(x25519), ninePlusP))
	for _, l := range lowOrder {
		recipient("key_recipient_x25519_low_order_"+l.name, "X25519 recipient text of the low-order u "+l.le+" (little-endian), valid checksum",
			lower(recipientPrefix(x25519), x(l.le)))
	}
	recipient("age_recipient_x25519_bit_255", "age recipient age1… of the reader's key with bit 255 set", ageText("age", bit255))
	recipient("age_recipient_x25519_9_plus_p", "age recipient age1… of u = 9 + p", ageText("age", ninePlusP))
	recipient("age_recipient_x25519_low_order_zero", "age recipient age1… of the all-zero u", ageText("age", x(lowOrder[0].le)))
	recipient("age_recipient_x25519_low_order_order_8", "age recipient age1… of a u of order 8", ageText("age", x(lowOrder[3].le)))
	// The same rule holds for the X25519 half of an ML-KEM-768+X25519 key
	// (its last 32 bytes), in both spellings.
	hybrid := func(half []byte) []byte {
		pk := alice(mlkem).pk
		return cat(pk[:len(pk)-32], half)
	}
	mlkemHalf := alice(mlkem).pk[len(alice(mlkem).pk)-32:]
	hybridBit255 := hybrid(cat(mlkemHalf[:31], []byte{mlkemHalf[31] | 0x80}))
	recipient("key_recipient_mlkem_x25519_bit_255", "ML-KEM-768+X25519 recipient text of the reader's key with bit 255 of its X25519 half set, valid checksum",
		lower(recipientPrefix(mlkem), hybridBit255))
	recipient("key_recipient_mlkem_x25519_9_plus_p", "ML-KEM-768+X25519 recipient text whose X25519 half is u = 9 + p, valid checksum",
		lower(recipientPrefix(mlkem), hybrid(ninePlusP)))
	recipient("key_recipient_mlkem_x25519_low_order_zero", "ML-KEM-768+X25519 recipient text whose X25519 half is the all-zero u, valid checksum",
		lower(recipientPrefix(mlkem), hybrid(x(lowOrder[0].le))))
	recipient("age_recipient_mlkem_x25519_bit_255", "age recipient age1pq1… of the reader's ML-KEM-768+X25519 key with bit 255 of its X25519 half set",
		ageText("age1pq", hybridBit255))
	ar := ageText("age", me.pk)
	// otherLast changes the last character of Bech32 text to another of
	// the charset, in its case.
	otherLast := func(s string) string {
		c := "q"
		if strings.EqualFold(s[len(s)-1:], "q") {
			c = "p"
		}
		if s == strings.ToUpper(s) {
			c = strings.ToUpper(c)
		}
		return s[:len(s)-1] + c
	}
	recipient("age_recipient_bad_checksum", "age recipient age1… with its last checksum character changed", otherLast(ar))
	recipient("age_recipient_upper_case", "age recipient age1… in upper case", strings.ToUpper(ar))
	recipient("age_recipient_mlkem_short", "age recipient age1pq1… of 1 215 bytes", ageText("age1pq", alice(mlkem).pk[:1215]))

	// An X25519 scalar that is not clamped: in fanseal's spelling another
	// text of the clamped key, refused; in age's, read and clamped.
	unclamped := draw("an unclamped x25519 scalar", 32)
	unclamped[0] |= 7
	unclamped[31] |= 0x80
	ku := keyPair(x25519, unclamped) // crypto/ecdh clamps: the key is clamp(unclamped)
	identity("key_identity_x25519_unclamped", "X25519 identity text of an unclamped scalar (low bits and bit 255 set), valid checksum; the envelope is sealed to its clamped key", ku,
		keyText(identityPrefix(x25519), unclamped))
	ageID := func(name, comment string, to *key, text string, class string) {
		k.add(name, func(g *gen) *Vector {
			e := g.newEnvelope(aeadAESGCM, false).add(g.hpke(bob(to.kem)), g.hpke(to))
			e.payload = g.text()
			v := open(class, comment, e)
			v.Identities = []string{text}
			return v
		})
	}
	ageID("age_identity_x25519", "age's AGE-SECRET-KEY-1… spelling of the reader's X25519 identity (its clamped scalar)", me, ageText("AGE-SECRET-KEY-", me.sk), Success)
	ageID("age_identity_x25519_unclamped", "age's AGE-SECRET-KEY-1… of an unclamped scalar (low bits and bit 255 set), as age-keygen writes them: read and clamped", ku,
		ageText("AGE-SECRET-KEY-", unclamped), Success)
	ageID("age_identity_mlkem768x25519", "age's AGE-SECRET-KEY-PQ-1… spelling of the reader's ML-KEM-768+X25519 identity (its seed)", alice(mlkem),
		ageText("AGE-SECRET-KEY-PQ-", alice(mlkem).sk), Success)
	ai := ageText("AGE-SECRET-KEY-", me.sk)
	ageID("age_identity_lower_case", "age's X25519 identity spelling in lower case", me, strings.ToLower(ai), InvalidKey)
	ageID("age_identity_bad_checksum", "age's X25519 identity spelling with its last checksum character changed", me,
		otherLast(ai), InvalidKey)
	ageID("age_identity_short", "age's X25519 identity spelling of 31 bytes", me, ageText("AGE-SECRET-KEY-", me.sk[:31]), InvalidKey)
	recipient("key_recipient_mlkem_short", "ML-KEM-768+X25519 recipient text of 1 215 bytes, valid checksum",
		lower(recipientPrefix(mlkem), alice(mlkem).pk[:1215]))
}

// privateVectors: FORMAT.md, "Private envelopes": one ephemeral key per
// suite, type 0x03 stanzas with tags in place of key identifiers, and
// what rules 1, 5, 5a, 6, 10, 11, 13 and 14 make of them. Every success
// is computed from the spec's tag derivations, so the files pin them.
func privateVectors(k *kit) {
	b, c := bob(x25519), carol(x25519)
	mine := []*key{me}
	pq, pqb, pqc := alice(mlkem), bob(mlkem), carol(mlkem)
	x := func(le string) []byte { return hexBytes(le) }
	const order8 = "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"

	for _, s := range kems {
		for _, a := range aeads {
			what := fmt.Sprintf("a type 0x02 ephemeral key of %s and type 0x03 stanzas with tags (Export(\"fanseal/v1 tag\" || preamble, 8) of each stanza's HPKE context)", s.name)
			if !s.classical() {
				what = "a type 0x02 stanza of mlkem768x25519 holding the X25519 ephemeral key ct_X (L = 34) and type 0x03 stanzas of L = 1146 (tag from the X25519 half, ct_M, ct)"
			}
			k.private(fmt.Sprintf("success_%s_private_%s", s.name, aeadName(a)), Success,
				fmt.Sprintf("a private envelope: %s for bob, the reader and carol, %s: the second opens", what, aeadName(a)), a, []*key{alice(s)},
				func(g *gen) []stanza {
					sh := g.shared(s)
					return []stanza{sh.ephemeral(), sh.to(bob(s)), sh.to(alice(s)), sh.to(carol(s))}
				})
		}
	}
	env := func(name, class, comment string, ids []*key, f func(g *gen) []stanza) {
		k.private(name, class, comment, aeadAESGCM, ids, f)
	}
	env("success_private_suites_mixed", Success, "a private envelope: ephemeral keys of P-256, X25519 and secp256k1 first, then a type 0x03 stanza for bob of each suite, then the reader's X25519 stanza", mine,
		func(g *gen) []stanza {
			p, xs, k1 := g.shared(p256), g.shared(x25519), g.shared(secp256k1KEM)
			return []stanza{p.ephemeral(), xs.ephemeral(), k1.ephemeral(), p.to(bob(p256)), xs.to(b), k1.to(bob(secp256k1KEM)), xs.to(me)}
		})
	env("success_private_two_identities", Success, "a private envelope of P-256 and X25519 stanzas, read with a P-256 identity that has no stanza (its tag is not there) and the reader's X25519 identity", []*key{carol(p256), me},
		func(g *gen) []stanza {
			p, xs := g.shared(p256), g.shared(x25519)
			return []stanza{p.ephemeral(), xs.ephemeral(), p.to(bob(p256)), xs.to(b), xs.to(me)}
		})
	env("success_private_skip_unknown", Success, "a private envelope: a stanza of unknown type 0xff and a type 0x02 and type 0x03 (L = 58) of unknown suite 0x0012 beside the reader's are skipped", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{raw(0x02, cat(u16(0x0012), g.rand(133))), sh.ephemeral(), raw(0x03, cat(u16(0x0012), g.rand(tagSize+ctSize))), raw(0xff, g.rand(40)), sh.to(me)}
		})
	// Rule 10 names a stanza by its suite and tag: the reader's tag on a
	// stanza of another suite is no collision.
	env("private_same_tag_other_suite", Success, "rule 10 does not apply: a private envelope whose P-256 type 0x03 stanza for nobody carries the reader's X25519 tag, then the reader's stanza", mine,
		func(g *gen) []stanza {
			xs, p := g.shared(x25519), g.shared(p256)
			mineStanza, junk := xs.to(me), g.rand(ctSize)
			other := func(e *envelope, pre []byte) (byte, []byte) {
				_, body := mineStanza(e, pre)
				return 0x03, cat(u16(kemP256), body[2:2+tagSize], junk)
			}
			return []stanza{xs.ephemeral(), p.ephemeral(), p.to(bob(p256)), other, mineStanza}
		})
	env("private_trials_1001", Success, "rule 12: a private envelope of 1 000 X25519 type 0x03 stanzas for nobody (random tags) and the reader's: no trial limit applies, the reader makes one key agreement", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			ss := []stanza{sh.ephemeral()}
			for range 1000 {
				ss = append(ss, raw(0x03, cat(u16(kemX25519), g.rand(tagSize+ctSize))))
			}
			return append(ss, sh.to(me))
		})

	// Rule 1: the flags.
	flags := func(name, class, comment string, f byte) {
		k.add(name, func(g *gen) *Vector {
			sh := g.shared(x25519)
			e := g.newPrivate(aeadAESGCM).add(sh.ephemeral(), sh.to(b), sh.to(me))
			e.flags = f
			e.payload = g.text()
			return open(class, comment, e, me)
		})
	}
	flags("private_anonymous_flags", Malformed, "rule 1: flags 0x05, anonymous and private, on a private envelope (tags) of an X25519 ephemeral key and the reader's stanza", 0x05)
	flags("private_flag_bit_1", Unsupported, "rule 1: flags 0x06, private and bit 1, on a private envelope of an X25519 ephemeral key and the reader's stanza", 0x06)
	k.add("private_anonymous_flags_aead_aes128gcm", func(g *gen) *Vector {
		sh := g.shared(x25519)
		e := g.newPrivate(aeadAESGCM).add(sh.ephemeral(), sh.to(b), sh.to(me))
		e.flags, e.aead, e.sealAEAD = 0x05, 0x0001, aeadAESGCM
		e.payload = g.text()
		return open(Unsupported, "rule 1: flags 0x05 and AEAD 0x0001 (AES-128-GCM; stanzas and payload sealed with AES-256-GCM): an unknown AEAD (unsupported) is checked before bits 0 and 2 together (malformed)", e, me)
	})
	flags("private_anonymous_flag_bit_1", Unsupported, "rule 1: flags 0x07: an unknown flag bit (unsupported) is checked before bits 0 and 2 together (malformed)", 0x07)

	// Rule 5a: no type 0x01 or 0x04 stanza in a private envelope.
	env("private_stanza01_mine", Malformed, "rule 5a: a private envelope holding only the reader's type 0x01 stanza, with its key identifier", mine,
		func(g *gen) []stanza { return []stanza{g.hpke(me)} })
	env("private_stanza01_after_good", Malformed, "rule 5a: a private envelope: an X25519 ephemeral key and the reader's type 0x03 stanza, then a type 0x01 stanza for bob", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), g.hpke(b)}
		})
	env("private_stanza01_mlkem", Malformed, "rule 5a: a private envelope: the hybrid type 0x02 and the reader's ML-KEM-768+X25519 type 0x03 stanza, then a type 0x01 stanza for bob of that suite", []*key{pq},
		func(g *gen) []stanza {
			sh := g.shared(mlkem)
			return []stanza{sh.ephemeral(), sh.to(pq), g.hpke(pqb)}
		})
	env("private_stanza04_after_good", Malformed, "rule 5a: a private envelope: an X25519 ephemeral key and the reader's type 0x03 stanza, then a channel stanza from bob to carol", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), g.channel(b, c, 1).stanza()}
		})
	k.add("private_stanza04_keyring", func(g *gen) *Vector {
		e := g.newPrivate(aeadAESGCM).add(g.channel(b, me, 0).stanza())
		e.payload = g.text()
		return withKeyring(open(Malformed, "rule 5a: a private envelope holding only a channel stanza from bob to alice, read with alice's keyring of peer bob at epoch 0", e), me, b, 0)
	})

	// Rules 5 and 6: the hybrid shared form, only in a private envelope,
	// and of its lengths.
	hybrid := func(g *gen) []stanza {
		sh := g.shared(mlkem)
		return []stanza{sh.ephemeral(), sh.to(pqb), sh.to(pq)}
	}
	for _, c := range []struct {
		name, what string
		flags      byte
	}{
		{"private_mlkem_flag_clear", "flags 0x00 (key identifiers)", 0},
		{"private_mlkem_anonymous_flag", "flags 0x01 (anonymous)", 1},
	} {
		k.add(c.name, func(g *gen) *Vector {
			e := g.newPrivate(aeadAESGCM).add(hybrid(g)...)
			e.flags = c.flags
			e.payload = g.text()
			return open(Malformed, "rule 5: a hybrid type 0x02 stanza (L = 34) and hybrid type 0x03 stanzas (L = 1146, rule 6) for bob and the reader, as a private envelope has them, in an envelope of "+c.what, e, pq)
		})
	}
	k.stanzas("stanza02_mlkem_shared_identified", Malformed, "rule 5: the reader's ML-KEM-768+X25519 type 0x01 stanza, then a hybrid type 0x02 (L = 34) and type 0x03 (L = 1146, rule 6) for bob, in an envelope with key identifiers", false, []*key{pq},
		func(g *gen) []stanza {
			sh := g.shared(mlkem)
			return []stanza{g.hpke(pq), sh.ephemeral(), sh.to(pqb)}
		})
	hybridEnv := func(name, comment string, f func(g *gen, sh *shared) []stanza) {
		env(name, Malformed, comment, []*key{pq}, func(g *gen) []stanza { return f(g, g.shared(mlkem)) })
	}
	hybridEnv("private_mlkem_ephemeral_long", "rule 5: a private envelope: a hybrid type 0x02 stanza with one byte too many (L = 35), then the reader's type 0x03 stanza",
		func(g *gen, sh *shared) []stanza { return []stanza{grow(sh.ephemeral(), 1), sh.to(pq)} })
	hybridEnv("private_mlkem_ephemeral_short", "rule 5: a private envelope: a hybrid type 0x02 stanza with one byte too few (L = 33), then the reader's type 0x03 stanza",
		func(g *gen, sh *shared) []stanza { return []stanza{grow(sh.ephemeral(), -1), sh.to(pq)} })
	hybridEnv("private_mlkem_ephemeral_full_enc", "rule 5: a private envelope: a hybrid type 0x02 stanza of L = 2 + 1120 (the X25519 key after 1 088 bytes in the place of ct_M), then the reader's type 0x03 stanza",
		func(g *gen, sh *shared) []stanza {
			return []stanza{edit(sh.ephemeral(), func(body []byte) []byte { return cat(body[:2], g.rand(mlkemCTSize), body[2:]) }), sh.to(pq)}
		})
	hybridEnv("private_mlkem_two_ephemerals", "rule 5: a private envelope: two hybrid type 0x02 stanzas, each followed by a type 0x03 stanza (the reader's, then bob's)",
		func(g *gen, sh *shared) []stanza {
			sh2 := g.shared(mlkem)
			return []stanza{sh.ephemeral(), sh.to(pq), sh2.ephemeral(), sh2.to(pqb)}
		})
	hybridEnv("private_mlkem_shared_long", "rule 6: a private envelope: the hybrid type 0x02, then the reader's type 0x03 stanza with one byte too many (L = 1147)",
		func(g *gen, sh *shared) []stanza { return []stanza{sh.ephemeral(), grow(sh.to(pq), 1)} })
	hybridEnv("private_mlkem_shared_short", "rule 6: a private envelope: the hybrid type 0x02, bob's type 0x03 stanza with one byte too few (L = 1145), then the reader's",
		func(g *gen, sh *shared) []stanza { return []stanza{sh.ephemeral(), grow(sh.to(pqb), -1), sh.to(pq)} })
	hybridEnv("private_mlkem_shared_58", "rule 6: a private envelope: the hybrid type 0x02, the reader's type 0x03 stanza, then one for bob in the classical form (L = 58: tag and ct, no ct_M)",
		func(g *gen, sh *shared) []stanza {
			return []stanza{sh.ephemeral(), sh.to(pq), edit(sh.to(pqb), func(body []byte) []byte {
				return cat(body[:2+tagSize], body[2+tagSize+mlkemCTSize:])
			})}
		})
	hybridEnv("private_mlkem_orphan", "rule 6: a private envelope: the reader's hybrid type 0x03 stanza with no type 0x02 stanza before it",
		func(g *gen, sh *shared) []stanza { return []stanza{sh.to(pq)} })
	env("private_shared_long", Malformed, "rule 6: a private envelope: an X25519 ephemeral key, then the reader's type 0x03 stanza with one byte too many (L = 59)", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), grow(sh.to(me), 1)}
		})
	env("private_shared_without_tag", Malformed, "rule 6: a private envelope: an X25519 ephemeral key, the reader's type 0x03 stanza, then bob's without its tag (L = 50, the anonymous length)", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), edit(sh.to(b), func(body []byte) []byte { return cat(body[:2], body[2+tagSize:]) })}
		})

	// Rule 10: two shared stanzas of one suite with one tag, seen before
	// any key agreement, whoever reads.
	env("private_duplicate_tag_mine", Malformed, "rule 10: a private envelope: an X25519 ephemeral key and two type 0x03 stanzas for the reader, with one tag", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), sh.to(me)}
		})
	env("private_duplicate_tag_other", Malformed, "rule 10: a private envelope: an X25519 ephemeral key, the reader's type 0x03 stanza, then two for bob with one tag", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(me), sh.to(b), sh.to(b)}
		})
	env("private_duplicate_tag_stranger", Malformed, "rule 10: a private envelope: an X25519 ephemeral key and two type 0x03 stanzas for bob with one tag, read by an X25519 identity that has no stanza", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(b), sh.to(b)}
		})
	env("private_duplicate_tag_stranger_other_suite", Malformed, "rule 10: a private envelope: a P-256 ephemeral key and two type 0x03 stanzas for bob with one tag, read by an X25519 identity, which makes no key agreement", mine,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{sh.ephemeral(), sh.to(bob(p256)), sh.to(bob(p256))}
		})
	env("private_duplicate_tag_mlkem", Malformed, "rule 10: a private envelope: the hybrid type 0x02 and two type 0x03 stanzas for the reader (two ML-KEM-768 encapsulations, one tag)", []*key{pq},
		func(g *gen) []stanza {
			sh := g.shared(mlkem)
			return []stanza{sh.ephemeral(), sh.to(pq), sh.to(pq)}
		})

	// Rule 11: a private envelope mixes no more than any other.
	env("private_mixed_pq_reader", Malformed, "rule 11: a private envelope: the hybrid type 0x02 and the reader's ML-KEM-768+X25519 stanza, an X25519 ephemeral key and bob's X25519 stanza", []*key{pq},
		func(g *gen) []stanza {
			h, xs := g.shared(mlkem), g.shared(x25519)
			return []stanza{h.ephemeral(), xs.ephemeral(), h.to(pq), xs.to(b)}
		})
	env("private_mixed_classical_reader", Malformed, "rule 11: a private envelope: an X25519 ephemeral key and the reader's X25519 stanza, the hybrid type 0x02 and bob's ML-KEM-768+X25519 stanza", mine,
		func(g *gen) []stanza {
			h, xs := g.shared(mlkem), g.shared(x25519)
			return []stanza{xs.ephemeral(), h.ephemeral(), xs.to(me), h.to(pqb)}
		})

	// Rule 13: no stanza with the reader's tag.
	env("private_not_recipient", NotRecipient, "rule 13: a private envelope: an X25519 ephemeral key and type 0x03 stanzas for bob and carol only", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{sh.ephemeral(), sh.to(b), sh.to(c)}
		})
	env("private_not_recipient_mlkem", NotRecipient, "rule 13: a private envelope: the hybrid type 0x02 and type 0x03 stanzas for bob and carol only", []*key{pq},
		func(g *gen) []stanza {
			sh := g.shared(mlkem)
			return []stanza{sh.ephemeral(), sh.to(pqb), sh.to(pqc)}
		})
	env("private_not_recipient_other_suite", NotRecipient, "rule 13: a private envelope of P-256 stanzas only; the reader is X25519", mine,
		func(g *gen) []stanza {
			sh := g.shared(p256)
			return []stanza{sh.ephemeral(), sh.to(bob(p256))}
		})
	for _, s := range []*kem{x25519, mlkem} {
		r, other := alice(s), bob(s)
		suffix := ""
		if !s.classical() {
			suffix = "_mlkem"
		}
		env("private_wrong_tag"+suffix, NotRecipient, "rule 13: a private envelope: the "+s.name+" ephemeral key, bob's stanza, then the reader's with a bit flipped in its tag: no stanza has the reader's tag", []*key{r},
			func(g *gen) []stanza {
				sh := g.shared(s)
				return []stanza{sh.ephemeral(), sh.to(other), flipTag(sh.to(r))}
			})
		env("private_tag_other_preamble"+suffix, NotRecipient, "rule 13: a private envelope: the "+s.name+" ephemeral key and the reader's stanza, its ct sealed with this preamble but its tag computed with the preamble of another envelope (another nonce)", []*key{r},
			func(g *gen) []stanza {
				sh := g.shared(s)
				return []stanza{sh.ephemeral(), sh.withTagPreamble(func(pre []byte) []byte { return flip(pre, 11) }).to(r)}
			})
		env("private_flipped_ciphertext"+suffix, Authentication, "rule 14: a private envelope: the "+s.name+" ephemeral key, bob's stanza, then the reader's with a bit flipped in its ct: the reader's tag, a ct that does not open", []*key{r},
			func(g *gen) []stanza {
				sh := g.shared(s)
				return []stanza{sh.ephemeral(), sh.to(other), flipLast(sh.to(r))}
			})
		env("private_wrong_file_key"+suffix, Authentication, "rule 14: a private envelope: the "+s.name+" ephemeral key, bob's stanza, then the reader's, which opens to a file key that does not verify the header MAC", []*key{r},
			func(g *gen) []stanza {
				sh := g.shared(s)
				return []stanza{sh.ephemeral(), sh.to(other), sh.toWith(r, g.rand(32))}
			})
	}
	env("private_mlkem_flipped_ct_m", Authentication, "rule 14: a private envelope: the hybrid type 0x02, then the reader's type 0x03 stanza with a bit flipped in its ML-KEM-768 ciphertext ct_M: its tag (from the X25519 half) matches, ct does not open", []*key{pq},
		func(g *gen) []stanza {
			sh := g.shared(mlkem)
			return []stanza{sh.ephemeral(), edit(sh.to(pq), func(body []byte) []byte { return flip(body, 2+tagSize+100) })}
		})
	env("private_mlkem_stanza_of_other_ephemeral", Authentication, "rule 14: a private envelope: the hybrid type 0x02 stanza, then the reader's type 0x03 stanza whose tag is computed with it, but whose ct_M and ct come from a stanza of another X25519 ephemeral key", []*key{pq},
		func(g *gen) []stanza {
			sh, sh2 := g.shared(mlkem), g.shared(mlkem)
			good, other := sh.to(pq), sh2.to(pq)
			return []stanza{sh.ephemeral(), func(e *envelope, pre []byte) (byte, []byte) {
				_, a := good(e, pre)
				_, o := other(e, pre)
				return 0x03, cat(a[:2+tagSize], o[2+tagSize:])
			}}
		})

	// An ephemeral key that is not a usable point: authentication, for
	// every reader of its suite alike.
	for _, c := range []struct {
		name string
		k    *kem
		eph  []byte
		what string
	}{
		{"x25519", x25519, make([]byte, 32), "the all-zero X25519 point"},
		{"x25519_order_8", x25519, x(order8), "an X25519 point of order 8"},
		{"p256", p256, offCurve(bob(p256)), "a P-256 point off the curve"},
		{"secp256k1", secp256k1KEM, offCurve(bob(secp256k1KEM)), "a secp256k1 point off the curve"},
		{"mlkem768x25519", mlkem, make([]byte, 32), "the all-zero X25519 point as ct_X"},
		{"mlkem768x25519_order_8", mlkem, x(order8), "an X25519 point of order 8 as ct_X"},
	} {
		r := alice(c.k)
		env("private_invalid_ephemeral_"+c.name, Authentication, "rule 14: a private envelope whose type 0x02 ephemeral key is "+c.what+" (the agreement fails), then bob's and the reader's type 0x03 stanzas made with a valid one", []*key{r},
			func(g *gen) []stanza {
				sh := g.shared(c.k)
				return []stanza{raw(0x02, cat(u16(int(c.k.id)), c.eph)), sh.to(bob(c.k)), sh.to(r)}
			})
	}
	env("private_invalid_ephemeral_stranger", Authentication, "rule 14: a private envelope whose X25519 ephemeral key is the all-zero point and a type 0x03 stanza for bob, read by an X25519 identity that has no stanza: the agreement fails for every reader of the suite alike", mine,
		func(g *gen) []stanza {
			sh := g.shared(x25519)
			return []stanza{raw(0x02, cat(u16(kemX25519), make([]byte, 32))), sh.to(b)}
		})
}

func hexBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
