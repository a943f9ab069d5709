package tandem_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tandem "example.invalid/tandem/clients/go"
	"example.invalid/tandem/clients/go/protocol"
)

// A config write through the typed client lands in config.toml; a provider's endpoint is
// refused with the reference's error data.
func TestConfigWriteIsTypedAndObeysThePolicy(t *testing.T) {
	h := newDemoHome(t)
	client := spawn(t, h)
	ctx := testContext(t)
	written, err := client.ConfigValueWrite(ctx, protocol.ConfigValueWriteParams{
		KeyPath:       "model_reasoning_effort",
		Value:         json.RawMessage(`"high"`),
		MergeStrategy: protocol.MergeStrategyReplace,
	})
	if err != nil {
		t.Fatal(err)
	}
	if written.Status != protocol.WriteStatusOk || !strings.HasPrefix(written.Version, "sha256:") {
		t.Errorf("config/value/write: %+v", written)
	}
	providers, err := client.ModelProviderList(ctx, protocol.ModelProviderListParams{})
	if err != nil || providers.DefaultProviderID != "demo" {
		t.Errorf("modelProvider/list: %+v, %v", providers, err)
	}
	_, err = client.ConfigValueWrite(ctx, protocol.ConfigValueWriteParams{
		KeyPath:       "model_providers.demo.base_url",
		Value:         json.RawMessage(`"http://elsewhere"`),
		MergeStrategy: protocol.MergeStrategyReplace,
	})
	var rpcErr *tandem.Error
	if !errors.As(err, &rpcErr) || string(rpcErr.Data) != `{"config_write_error_code":"configKeyRefused"}` {
		t.Errorf("a provider's endpoint written by a client: %v", err)
	}
	text, err := os.ReadFile(filepath.Join(h.home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `model_reasoning_effort = "high"`) || strings.Contains(string(text), "elsewhere") {
		t.Errorf("config.toml:\n%s", text)
	}
}
