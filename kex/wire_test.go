package kex

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// wireDescriptor builds, with the protobuf module's own descriptors, the
// message type existing deployments use:
//
//	message EphemeralPublicKeyMessage {
//	  uint32 senderID = 1;
//	  map<uint32, bytes> ephemeralPublicKeys = 2;
//	  string sessionID = 3;
//	}
func wireDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	opt := func(s string) *string { return &s }
	num := func(n int32) *int32 { return &n }
	label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	repeated := descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
	fd := &descriptorpb.FileDescriptorProto{
		Name:    opt("kex.proto"),
		Package: opt("net"),
		Syntax:  opt("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: opt("EphemeralPublicKeyMessage"),
			Field: []*descriptorpb.FieldDescriptorProto{
				{Name: opt("senderID"), Number: num(1), Label: label, Type: descriptorpb.FieldDescriptorProto_TYPE_UINT32.Enum(), JsonName: opt("senderID")},
				{Name: opt("ephemeralPublicKeys"), Number: num(2), Label: repeated, Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: opt(".net.EphemeralPublicKeyMessage.EphemeralPublicKeysEntry"), JsonName: opt("ephemeralPublicKeys")},
				{Name: opt("sessionID"), Number: num(3), Label: label, Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(), JsonName: opt("sessionID")},
			},
			NestedType: []*descriptorpb.DescriptorProto{{
				Name: opt("EphemeralPublicKeysEntry"),
				Field: []*descriptorpb.FieldDescriptorProto{
					{Name: opt("key"), Number: num(1), Label: label, Type: descriptorpb.FieldDescriptorProto_TYPE_UINT32.Enum(), JsonName: opt("key")},
					{Name: opt("value"), Number: num(2), Label: label, Type: descriptorpb.FieldDescriptorProto_TYPE_BYTES.Enum(), JsonName: opt("value")},
				},
				Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
			}},
		}},
	}
	file, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return file.Messages().Get(0)
}

// TestWireCompatibility decodes our messages with the protobuf module and
// ours with messages the protobuf module encoded.
func TestWireCompatibility(t *testing.T) {
	md := wireDescriptor(t)
	g := Group{Suite: Secp256k1, Size: 5, SessionID: "keep-round-3"}
	r, err := NewRound(g, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Ours, decoded by protobuf.
	dm := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(r.Message().Marshal(), dm); err != nil {
		t.Fatal(err)
	}
	fields := md.Fields()
	if got := dm.Get(fields.ByNumber(1)).Uint(); got != 3 {
		t.Fatalf("senderID = %d", got)
	}
	if got := dm.Get(fields.ByNumber(3)).String(); got != g.SessionID {
		t.Fatalf("sessionID = %q", got)
	}
	keys := dm.Get(fields.ByNumber(2)).Map()
	if keys.Len() != 4 {
		t.Fatalf("%d keys", keys.Len())
	}
	for i := uint32(1); i <= 5; i++ {
		want, ok := r.Message().PublicKey(i)
		got := keys.Get(protoreflect.ValueOfUint32(i).MapKey())
		if ok != keys.Has(protoreflect.ValueOfUint32(i).MapKey()) || ok && !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("key for member %d differs", i)
		}
	}
	// Protobuf's encoding (map order is not ours), decoded by us.
	for _, deterministic := range []bool{false, true} {
		wire, err := proto.MarshalOptions{Deterministic: deterministic}.Marshal(dm)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Unmarshal(wire, g)
		if err != nil {
			t.Fatalf("decoding protobuf's encoding: %v", err)
		}
		for i := uint32(1); i <= 5; i++ {
			a, _ := m.PublicKey(i)
			b, _ := r.Message().PublicKey(i)
			if !bytes.Equal(a, b) || m.SenderID != 3 {
				t.Fatalf("member %d's key differs after a protobuf round trip", i)
			}
		}
	}
}
