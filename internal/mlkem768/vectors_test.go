package mlkem768

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/mlkem"
	"crypto/sha3"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	circl "github.com/cloudflare/circl/kem/mlkem/mlkem768"
)

var accumulatedFlag = flag.Int("mlkem768.accumulated", 0, "iterations of TestAccumulated: 100, 10000 or 1000000 (0: 100 in -short, 10000 otherwise)")

// The hashes of the accumulated pseudorandom run over final FIPS 203, as
// Go's crypto/mlkem tests it (TestAccumulated in crypto/mlkem's
// mlkem_test.go, Go 1.26): C2SP CCTV's construction (inputs from
// SHAKE-128(""), outputs into a running SHAKE-128), without the expanded
// decapsulation key. CCTV's own hashes (testdata/cctv/README.md) are of
// the FIPS 203 initial public draft, whose K-PKE.KeyGen hashes d without
// the final standard's domain separator k (G(d) against G(d || k): the
// file's ρ is SHA3-512(d)), so no FIPS 203 implementation reproduces them.
var accumulatedHashes = map[int]string{
	100:     "1114b1b6699ed191734fa339376afa7e285c9e6acf6ff0177d346696ce564415",
	10000:   "8a518cc63da366322a8e7a818c7a0d63483cb3528d34a4cf42f35d5ad73f22fc",
	1000000: "424bf8f0e8ae99b78d788a6e2e8e9cdaf9773fc0c08a6f433507cb559edfd0f0",
}

func fromHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expandedKey is FIPS 203's 2400-byte decapsulation key of a seed,
// dk_PKE || ek || H(ek) || z, which Wycheproof's key generation vectors
// list: crypto/mlkem does not expose it, so it is circl's encoding.
func expandedKey(seed []byte) []byte {
	_, sk := circl.NewKeyFromSeed(seed)
	b := make([]byte, circl.PrivateKeySize)
	sk.Pack(b)
	return b
}

// TestAccumulated runs the accumulated pseudorandom vectors: for each
// iteration a seed, a message and a random ciphertext drawn from
// SHAKE-128(""); ek, the ciphertext and key of the encapsulation with
// that message, and the implicit-rejection key of the random ciphertext
// written to a running SHAKE-128, whose first 32 bytes must be the
// published hash (100 iterations in -short, 10 000 in CI, a million with
// -mlkem768.accumulated=1000000). The iterations run in parallel, their
// outputs hashed in order.
func TestAccumulated(t *testing.T) {
	n := *accumulatedFlag
	if n == 0 {
		n = 10000
		if testing.Short() {
			n = 100
		}
	}
	want, ok := accumulatedHashes[n]
	if !ok {
		t.Fatalf("no published hash for %d iterations (100, 10000 or 1000000)", n)
	}
	for _, impl := range implementations() {
		t.Run(impl.name(), func(t *testing.T) {
			start := time.Now()
			rng, acc := sha3.NewSHAKE128(), sha3.NewSHAKE128()
			const batch = 512
			type item struct {
				seed, m, ct1 []byte
				ek, c, k, k1 []byte
				err          error
			}
			items := make([]item, batch)
			workers := runtime.GOMAXPROCS(0)
			for done := 0; done < n; {
				b := min(batch, n-done)
				for i := range b {
					it := &items[i]
					*it = item{seed: make([]byte, SeedSize), m: make([]byte, 32), ct1: make([]byte, CiphertextSize)}
					rng.Read(it.seed)
					rng.Read(it.m)
					rng.Read(it.ct1)
				}
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := w; i < b; i += workers {
							it := &items[i]
							it.err = accumulate(impl, it.seed, it.m, it.ct1, &it.ek, &it.c, &it.k, &it.k1)
						}
					}()
				}
				wg.Wait()
				for i := range b {
					it := &items[i]
					if it.err != nil {
						t.Fatalf("iteration %d: %v", done+i, it.err)
					}
					acc.Write(it.ek)
					acc.Write(it.c)
					acc.Write(it.k)
					acc.Write(it.k1)
				}
				done += b
			}
			got := make([]byte, 32)
			acc.Read(got)
			if hex.EncodeToString(got) != want {
				t.Fatalf("%d iterations: hash %x, want %s", n, got, want)
			}
			t.Logf("%d iterations in %v: hash %x, as published", n, time.Since(start).Round(time.Millisecond), got)
		})
	}
}

// accumulate is one iteration of TestAccumulated.
func accumulate(impl implementation, seed, m, ct1 []byte, ek, c, k, k1 *[]byte) error {
	dk, err := newDecapsulationKey(impl, seed)
	if err != nil {
		return err
	}
	*ek = dk.EncapsulationKey().Bytes()
	if *k, *c, err = dk.EncapsulationKey().EncapsulateDerand(m); err != nil {
		return err
	}
	kk, err := dk.Decapsulate(*c)
	if err != nil {
		return err
	}
	if !bytes.Equal(kk, *k) {
		return fmt.Errorf("decapsulation gives %x, encapsulation %x", kk, *k)
	}
	*k1, err = dk.Decapsulate(ct1)
	return err
}

// cctvFile reads a CCTV file of "name = hex" lines.
func cctvFile(t *testing.T, name string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile("testdata/cctv/" + name)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string][]byte{}
	for line := range strings.Lines(string(data)) {
		k, val, ok := strings.Cut(strings.TrimSpace(line), " = ")
		if ok {
			v[k] = fromHex(t, val)
		}
	}
	return v
}

// TestCCTVUnluckySample runs CCTV's "unlucky" vector, whose ρ makes
// SampleNTT read more than 575 bytes of SHAKE-128 (probability 2^-38)
// when the matrix is expanded: every implementation parses its ek and
// encapsulates with its m to its c and K; circl decapsulates c with the
// vector's expanded dk (crypto/mlkem loads keys from seeds only). The
// vector's d is of the FIPS 203 draft's key generation (see
// accumulatedHashes), so d || z is not a FIPS 203 seed of this ek, but ek,
// m, c and K are FIPS 203's.
func TestCCTVUnluckySample(t *testing.T) {
	v := cctvFile(t, "unluckysample-ML-KEM-768.txt")
	for _, impl := range implementations() {
		ek, err := newEncapsulationKey(impl, v["ek"])
		if err != nil {
			t.Fatalf("%s: %v", impl.name(), err)
		}
		k, c, err := ek.EncapsulateDerand(v["m"])
		if err != nil || !bytes.Equal(k, v["K"]) || !bytes.Equal(c, v["c"]) {
			t.Errorf("%s: encapsulation differs (%v)", impl.name(), err)
		}
	}
	var sk circl.PrivateKey
	if err := sk.Unpack(v["dk"]); err != nil {
		t.Fatal(err)
	}
	ss := make([]byte, SharedKeySize)
	sk.DecapsulateTo(ss, v["c"])
	if !bytes.Equal(ss, v["K"]) {
		t.Errorf("circl: decapsulation gives %x, want %x", ss, v["K"])
	}
}

// checkKAT checks key generation from seed, the encapsulation with
// randomness m (skipped if nil) and the decapsulation of c.
func checkKAT(t *testing.T, impl implementation, seed, ek, m, c, k []byte) {
	t.Helper()
	dk, err := newDecapsulationKey(impl, seed)
	if err != nil {
		t.Fatalf("%s: %v", impl.name(), err)
	}
	if !bytes.Equal(dk.EncapsulationKey().Bytes(), ek) {
		t.Errorf("%s: encapsulation key differs", impl.name())
	}
	if m != nil {
		parsed, err := newEncapsulationKey(impl, ek)
		if err != nil {
			t.Fatalf("%s: %v", impl.name(), err)
		}
		gotK, gotC, err := parsed.EncapsulateDerand(m)
		if err != nil || !bytes.Equal(gotK, k) || !bytes.Equal(gotC, c) {
			t.Errorf("%s: encapsulation differs (%v)", impl.name(), err)
		}
	}
	if gotK, err := dk.Decapsulate(c); err != nil || !bytes.Equal(gotK, k) {
		t.Errorf("%s: decapsulation gives %x, %v; want %x", impl.name(), gotK, err, k)
	}
}

// TestCCTVModulus runs CCTV's invalid encapsulation keys: every value
// from q to 2^12 − 1 and every coefficient position, each refused by
// every implementation and by crypto/mlkem.
func TestCCTVModulus(t *testing.T) {
	f, err := os.Open("testdata/cctv/modulus-ML-KEM-768.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	s := bufio.NewScanner(z)
	s.Buffer(nil, 1<<16)
	n := 0
	for s.Scan() {
		ek := fromHex(t, s.Text())
		if _, err := mlkem.NewEncapsulationKey768(ek); err == nil {
			t.Fatalf("line %d: crypto/mlkem accepts it", n+1)
		}
		for _, impl := range implementations() {
			if _, err := newEncapsulationKey(impl, ek); err == nil {
				t.Fatalf("line %d: %s accepts it", n+1, impl.name())
			}
		}
		n++
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 768 {
		t.Fatalf("%d keys, want every one of 768 positions", n)
	}
	t.Logf("%d invalid encapsulation keys refused", n)
}

type wycheproofFile struct {
	TestGroups []struct {
		Tests []struct {
			TcID    int    `json:"tcId"`
			Comment string `json:"comment"`
			Seed    string `json:"seed"`
			M       string `json:"m"`
			EK      string `json:"ek"`
			DK      string `json:"dk"`
			C       string `json:"c"`
			K       string `json:"K"`
			Result  string `json:"result"`
		} `json:"tests"`
	} `json:"testGroups"`
}

func wycheproof(t *testing.T, name string) wycheproofFile {
	t.Helper()
	data, err := os.ReadFile("testdata/wycheproof/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var f wycheproofFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestWycheproofDecaps runs Wycheproof's ML-KEM-768 decapsulation
// vectors (mlkem_768_test.json, CCTV's strcmp case included): valid ones
// generate ek from the seed and decapsulate c to K; invalid ones have a
// seed or a ciphertext of the wrong length, refused.
func TestWycheproofDecaps(t *testing.T) {
	n := 0
	for _, g := range wycheproof(t, "mlkem_768_test.json").TestGroups {
		for _, tc := range g.Tests {
			for _, impl := range implementations() {
				n++
				seed, c := fromHex(t, tc.Seed), fromHex(t, tc.C)
				if tc.Result == "valid" {
					checkKAT(t, impl, seed, fromHex(t, tc.EK), nil, c, fromHex(t, tc.K))
					continue
				}
				dk, err := newDecapsulationKey(impl, seed)
				if err != nil {
					continue
				}
				if _, err := dk.Decapsulate(c); err == nil {
					t.Errorf("%s: tcId %d (%s) accepted", impl.name(), tc.TcID, tc.Comment)
				}
			}
		}
	}
	t.Logf("%d cases", n)
}

// TestWycheproofEncaps runs Wycheproof's ML-KEM-768 encapsulation vectors
// (mlkem_768_encaps_test.json): valid keys encapsulate with m to c and K;
// unreduced keys and keys of the wrong length are refused, as
// crypto/mlkem refuses them.
func TestWycheproofEncaps(t *testing.T) {
	n := 0
	for _, g := range wycheproof(t, "mlkem_768_encaps_test.json").TestGroups {
		for _, tc := range g.Tests {
			ekb := fromHex(t, tc.EK)
			_, stdErr := mlkem.NewEncapsulationKey768(ekb)
			for _, impl := range implementations() {
				n++
				ek, err := newEncapsulationKey(impl, ekb)
				if (err == nil) != (tc.Result == "valid") || (err == nil) != (stdErr == nil) {
					t.Errorf("%s: tcId %d (%s, %s): %v (crypto/mlkem: %v)", impl.name(), tc.TcID, tc.Comment, tc.Result, err, stdErr)
					continue
				}
				if err != nil {
					continue
				}
				k, c, err := ek.EncapsulateDerand(fromHex(t, tc.M))
				if err != nil || !bytes.Equal(k, fromHex(t, tc.K)) || !bytes.Equal(c, fromHex(t, tc.C)) {
					t.Errorf("%s: tcId %d (%s): encapsulation differs (%v)", impl.name(), tc.TcID, tc.Comment, err)
				}
			}
		}
	}
	t.Logf("%d cases", n)
}

// TestWycheproofKeygen runs Wycheproof's ML-KEM-768 key generation
// vectors (mlkem_768_keygen_seed_test.json): each seed gives ek and, in
// circl's encoding, the expanded dk.
func TestWycheproofKeygen(t *testing.T) {
	for _, g := range wycheproof(t, "mlkem_768_keygen_seed_test.json").TestGroups {
		for _, tc := range g.Tests {
			seed := fromHex(t, tc.Seed)
			if !bytes.Equal(expandedKey(seed), fromHex(t, tc.DK)) {
				t.Errorf("tcId %d: circl's expanded decapsulation key differs", tc.TcID)
			}
			for _, impl := range implementations() {
				dk, err := newDecapsulationKey(impl, seed)
				if err != nil || !bytes.Equal(dk.EncapsulationKey().Bytes(), fromHex(t, tc.EK)) {
					t.Errorf("%s: tcId %d: encapsulation key differs (%v)", impl.name(), tc.TcID, err)
				}
			}
		}
	}
}
