module github.com/fanseal/fanseal/bench/peers

go 1.26.0

replace github.com/fanseal/fanseal => ../..

require (
	filippo.io/age v1.3.2
	github.com/cloudflare/circl v1.6.5
	github.com/fanseal/fanseal v0.0.0-00010101000000-000000000000
	github.com/tink-crypto/tink-go/v2 v2.9.0
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/sync v0.25.0
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	filippo.io/hpke v0.4.0 // indirect
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/btcsuite/btcd/btcutil v1.2.0 // indirect
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	gitlab.com/yawning/secp256k1-voi v0.0.0-20230925100816-f2616030848b // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
