"""`make test-train`: TRL's SFTTrainer trains a vision-language model on `kibo export vlm`.

The export of the embedded sample (`kibo run` with pipelines/default.toml, then
`kibo export vlm --limit 64 --cell-px 28 --seed 1 --no-image-tag`) is read the way a
user reads it, `datasets.load_dataset(DEST)`, with no cast: `images` must come back as
a list of PIL images (the Parquet schema's `huggingface` metadata says so). Then
`trl.SFTTrainer` fine-tunes a tiny Qwen2-VL built from a config (random weights, nothing
downloaded: `Qwen2VLForConditionalGeneration`, a word-level tokenizer trained on the
export's own text, Qwen2-VL's special tokens and a chat template of the same shape) on
CPU for a few steps over a small fixed subset: every logged loss is finite and the loss
falls (mean of the last 3 logged losses below the mean of the first 3). The trained model
then answers 50 rows of the sample's evaluation set (`kibo export vlm --split test`)
with `generate`, and `kibo eval` scores them (docs/eval.md).

How TRL 1.16.0 reads the rows (trl/trainer/sft_trainer.py, trl/data_utils.py):
* a train dataset with an `images` (or `image`) column is a vision dataset: the dataset is
  not tokenized up front (`_skip_prepare_dataset`), packing and padding-free are refused,
  and the default collator is `DataCollatorForVisionLanguageModeling(processor)`, which
  needs `processing_class` to be a `ProcessorMixin` (a Qwen2VLProcessor here). The columns
  kept for it are `messages`, `prompt`, `completion`, `image`, `images`; with `messages`
  present it collates as conversational language modelling (the `prompt` column is
  ignored: there is no `completion` column, so `completion_only_loss` stays off);
* per row, `prepare_multimodal_messages(messages, images)` turns each string `content`
  into `[{"type": "text", ...}]` and puts one `{"type": "image", "image": <PIL>}` block
  per image *before the text of the first user message*, then
  `processor.apply_chat_template(..., tokenize=True)` renders the template (which must
  turn an image block into `<|vision_start|><|image_pad|><|vision_end|>`) and the
  processor expands `<|image_pad|>` to one token per merged patch (441 at 588 px);
* a literal `<image>` in the user text (the export without `--no-image-tag`, the
  LLaMA-Factory convention) does not break anything: TRL does not look for it, so it
  stays in the text block as ordinary text (the image slot is still inserted before it)
  and the model is trained on a stray "<image>" string. Hence `--no-image-tag` here.
  Content already given as typed blocks would be used as is.
"""
import json
import math
import os
import pathlib
import subprocess
import time

import pytest

from conftest import ROOT

CELL_PX = 28            # 21 * 28 = 588 px -> 42 x 42 patches of 14 -> 441 tokens after the 2x2 merge
LIMIT = 64
SEED = 1
ROWS = 8                # the fixed subset the model overfits
STEPS = 16
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
           "<|image_pad|>", "<|video_pad|>", "[UNK]"]
# Qwen2-VL's template, reduced: an image block is <|vision_start|><|image_pad|><|vision_end|>;
# {% generation %} marks each assistant turn with its <|im_end|> (assistant_only_loss).
CHAT_TEMPLATE = (
    "{% macro render(content) %}"
    "{% if content is string %}{{ content }}"
    "{% else %}{% for part in content %}"
    "{% if part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{% endmacro %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'assistant' %}"
    "<|im_start|>assistant\n{% generation %}{{ render(message['content']) }}<|im_end|>{% endgeneration %}\n"
    "{% else %}"
    "<|im_start|>{{ message['role'] }}\n{{ render(message['content']) }}<|im_end|>\n"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@pytest.fixture(scope="session")
def vlm_data(kibo, sample_out, tmp_path_factory):
    """`kibo export vlm` of the embedded sample."""
    dest = tmp_path_factory.mktemp("vlm") / "data"
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(dest), "--limit", str(LIMIT),
                    "--cell-px", str(CELL_PX), "--seed", str(SEED), "--no-image-tag", "-q"], cwd=ROOT, check=True)
    return dest


def _texts(ds):
    yield "system user assistant"  # the role names the template writes
    for split in ds.values():
        for messages in split["messages"]:
            for m in messages:
                yield m["content"]


def _processor(ds):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import (PreTrainedTokenizerFast, Qwen2VLImageProcessor, Qwen2VLProcessor,
                              Qwen2VLVideoProcessor)

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(_texts(ds), trainers.WordLevelTrainer(special_tokens=SPECIAL))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        unk_token="[UNK]")
    tokenizer.chat_template = CHAT_TEMPLATE
    px = (CELL_PX * 21) ** 2
    # min = max = the picture's size: no resize (588 px is already a multiple of 14 * 2).
    image_processor = Qwen2VLImageProcessor(min_pixels=px, max_pixels=px)
    # transformers 5.25's Qwen2VLProcessor requires a video processor object (unused here).
    return Qwen2VLProcessor(image_processor=image_processor, tokenizer=tokenizer,
                            video_processor=Qwen2VLVideoProcessor(), chat_template=CHAT_TEMPLATE)


def _model(tokenizer):
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration
    ids = tokenizer.convert_tokens_to_ids
    config = Qwen2VLConfig(
        text_config=dict(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
                         bos_token_id=None, eos_token_id=ids("<|im_end|>"), pad_token_id=ids("<|endoftext|>")),
        vision_config=dict(depth=1, embed_dim=32, hidden_size=64, num_heads=2, mlp_ratio=2, patch_size=14,
                           spatial_merge_size=2, temporal_patch_size=2, in_channels=3),
        image_token_id=ids("<|image_pad|>"), video_token_id=ids("<|video_pad|>"),
        vision_start_token_id=ids("<|vision_start|>"), vision_end_token_id=ids("<|vision_end|>"),
    )
    return Qwen2VLForConditionalGeneration(config)


EVAL_ROWS = 50           # test rows the trained model answers, scored by `kibo eval`


def _generate_and_score(kibo, sample_out, model, processor, tmp_path):
    """The trained model answers EVAL_ROWS rows of an evaluation set (`kibo export vlm
    --split test`) with `generate`; `kibo eval` scores them (the figures mean nothing for
    a 16-step model: the loop from a set to a report is the point)."""
    import datasets
    import torch

    dest = tmp_path / "eval-set"
    subprocess.run([kibo, "export", "vlm", "--out", str(sample_out), "--to", str(dest), "--split", "test",
                    "--limit", str(EVAL_ROWS), "--cell-px", str(CELL_PX), "--seed", str(SEED), "--no-image-tag", "-q"],
                   cwd=ROOT, check=True)
    test = datasets.load_dataset(str(dest), cache_dir=str(tmp_path / "hf-cache-test"))["test"]
    assert test.num_rows == EVAL_ROWS, test
    model.eval()
    preds = tmp_path / "predictions.jsonl"
    with open(preds, "w") as f, torch.no_grad():
        for row in test:
            user = [m for m in row["messages"] if m["role"] != "assistant"]
            user[-1] = {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": user[-1]["content"]}]}
            text = processor.apply_chat_template(user, add_generation_prompt=True, tokenize=False)
            inputs = processor(text=[text], images=row["images"], return_tensors="pt")
            out = model.generate(**inputs, max_new_tokens=4, do_sample=False)
            answer = processor.tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
            f.write(json.dumps({"id": row["id"], "answer": answer}) + "\n")
    report = tmp_path / "eval.json"
    r = subprocess.run([kibo, "eval", "--set", str(dest), "--predictions", str(preds), "--report", str(report)],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rep = json.loads(report.read_text())
    print(r.stdout)
    assert rep["rows"] == EVAL_ROWS and rep["answered"] == EVAL_ROWS and rep["shape"] == "ids", rep
    assert sum(rep[t]["n"] for t in ("next-move", "transcribe", "tactics")) == EVAL_ROWS, rep


@pytest.mark.train
def test_sft_trainer_trains_qwen2_vl(vlm_data, kibo, sample_out, tmp_path):
    torch = pytest.importorskip("torch")
    datasets = pytest.importorskip("datasets")
    trl = pytest.importorskip("trl", reason="trl is not in this venv (tests/python/requirements-train.txt)")
    pytest.importorskip("torchvision", reason="torchvision is not in this venv (tests/python/requirements-train.txt)")
    from PIL import Image

    ds = datasets.load_dataset(str(vlm_data), cache_dir=str(tmp_path / "hf-cache"))
    # The embedded sample's games fall in train and test only: no validation split.
    assert set(ds) == {"train"}, ds
    row = ds["train"][0]
    assert isinstance(row["images"], list) and len(row["images"]) == 1, row["images"]
    img = row["images"][0]
    assert isinstance(img, Image.Image), type(img)
    assert img.size == (21 * CELL_PX, 21 * CELL_PX), img.size
    assert [m["role"] for m in row["messages"]][-2:] == ["user", "assistant"], row["messages"]
    assert all("<image>" not in m["content"] for r in ds["train"]["messages"] for m in r)
    # The same rows through the other way in: the parquet builder on the folder.
    by_dir = datasets.load_dataset("parquet", data_dir=str(vlm_data), cache_dir=str(tmp_path / "hf-cache2"))
    assert by_dir["train"].num_rows == ds["train"].num_rows
    assert isinstance(by_dir["train"][0]["images"][0], Image.Image)

    torch.manual_seed(0)
    processor = _processor(ds)
    model = _model(processor.tokenizer)
    # TRL's `is_conversational` looks at whichever of its keys ("prompt", "messages", ...) a
    # set yields first: with the export's plain-string `prompt` column beside `messages` it
    # answers True or False depending on PYTHONHASHSEED, and `assistant_only_loss` is then
    # refused ("the dataset is not conversational") on some runs. The collator itself
    # prefers `messages`, so plain SFT (full-sequence loss) works with `prompt` present;
    # for the assistant-only loss the column is dropped.
    assert ds["train"].num_rows >= 4, ds
    train = ds["train"].select(range(min(ROWS, ds["train"].num_rows))).remove_columns(["prompt"])
    args = trl.SFTConfig(
        output_dir=str(tmp_path / "run"), max_steps=STEPS, per_device_train_batch_size=2,
        gradient_accumulation_steps=1, learning_rate=3e-3, lr_scheduler_type="constant", warmup_steps=0,
        weight_decay=0.0, logging_steps=1, save_strategy="no", report_to="none", seed=0, data_seed=0,
        use_cpu=True, bf16=False, fp16=False, gradient_checkpointing=False, dataloader_num_workers=0,
        max_length=None,              # no truncation: the 441 image tokens stay whole
        assistant_only_loss=True,     # loss on the answers (the {% generation %} spans), not the prompt
    )
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=train, processing_class=processor)

    # One batch through TRL's own collator (DataCollatorForVisionLanguageModeling): one
    # 42 x 42 patch grid per picture, 441 image tokens per row, and the loss only on the
    # answer and its <|im_end|>.
    tokenizer = processor.tokenizer
    batch = trainer.data_collator([dict(train[i]) for i in range(2)])
    assert batch["image_grid_thw"].tolist() == [[1, 42, 42]] * 2, batch["image_grid_thw"]
    assert batch["pixel_values"].shape == (2 * 42 * 42, 3 * 2 * 14 * 14), batch["pixel_values"].shape
    image_id = tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert (batch["input_ids"] == image_id).sum(dim=1).tolist() == [441, 441]
    for i in range(2):
        target = batch["labels"][i][batch["labels"][i] != -100]
        want = tokenizer(train[i]["answer"], add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        assert target.tolist() == want, (tokenizer.decode(target), train[i]["answer"])
    t0 = time.time()
    trainer.train()
    secs = time.time() - t0
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    print(f"SFTTrainer, tiny Qwen2-VL ({sum(p.numel() for p in model.parameters())} parameters, "
          f"vocabulary {len(tokenizer)}), "
          f"{STEPS} steps of 2 rows on {train.num_rows} rows in {secs:.0f} s; losses "
          + " ".join(f"{x:.3f}" for x in losses))
    assert len(losses) == STEPS, trainer.state.log_history
    assert all(math.isfinite(x) for x in losses), losses
    first, last = sum(losses[:3]) / 3, sum(losses[-3:]) / 3
    assert last < first, (first, last, losses)
    _generate_and_score(kibo, sample_out, model, processor, tmp_path)
