module github.com/fanseal/fanseal/cmd/fanseal

go 1.26.0

require (
	c2sp.org/CCTV/age v0.0.0-20260829155415-4448f2097b2d
	filippo.io/age v1.3.2
	github.com/btcsuite/btcd/btcec/v2 v2.3.5
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1
	github.com/fanseal/fanseal v0.0.0-00010101000000-000000000000
	github.com/rogpeppe/go-internal v1.16.0
	go.uber.org/goleak v1.3.0
	golang.org/x/crypto v0.59.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	gonum.org/v1/plot v0.17.0
	google.golang.org/protobuf v1.36.12
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	filippo.io/edwards25519 v1.2.0 // indirect
	filippo.io/hpke v0.4.0 // indirect
	filippo.io/nistec v0.0.4 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/btcsuite/btcd/btcutil v1.2.0 // indirect
	github.com/btcsuite/btcd/chaincfg/chainhash v1.1.0 // indirect
	github.com/cloudflare/circl v1.6.5 // indirect
	github.com/decred/dcrd/crypto/blake256 v1.1.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/hdevalence/ed25519consensus v0.2.0 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	github.com/zeebo/blake3 v0.2.4 // indirect
	gitlab.com/yawning/secp256k1-voi v0.0.0-20230925100816-f2616030848b // indirect
	golang.org/x/image v0.46.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

// The library is the checkout this module sits in (see go.work).
replace github.com/fanseal/fanseal => ../..

tool (
	filippo.io/age/cmd/age
	filippo.io/age/cmd/age-inspect
	filippo.io/age/cmd/age-keygen
	filippo.io/age/cmd/age-plugin-batchpass
)
