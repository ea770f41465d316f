module github.com/fanseal/fanseal

go 1.26.0

require (
	filippo.io/edwards25519 v1.2.0
	github.com/btcsuite/btcd/btcec/v2 v2.3.5
	github.com/btcsuite/btcd/btcutil v1.2.0
	github.com/cloudflare/circl v1.6.5
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/hdevalence/ed25519consensus v0.2.0
	github.com/zeebo/blake3 v0.2.4
	gitlab.com/yawning/secp256k1-voi v0.0.0-20230925100816-f2616030848b
	go.uber.org/goleak v1.3.0
	golang.org/x/crypto v0.59.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/btcsuite/btcd/chaincfg/chainhash v1.1.0 // indirect
	github.com/decred/dcrd/crypto/blake256 v1.1.0 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
)
