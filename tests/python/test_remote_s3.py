"""s3:// objects and pre-signed URLs: an S3-compatible store on the loopback (s3rver, from the
npm registry) behind a proxy that checks every request's AWS Signature Version 4 with an
implementation of its own (tests/support/sigv4.py), as S3 would. Credentials, region and
endpoint come from the AWS environment variables or the ~/.aws files, as for the AWS CLI."""
import json
import os
import subprocess
import sys

import pytest
import torch

import h5feed
from conftest import H5FEED, write_h5feed_file

sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "support"))
from http_servers import S3  # noqa: E402

AWS_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
                 "AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """The store holding data/train.h5 (2,000 images of 24 x 20 x 3 in 63 chunks), and the
    local copy."""
    folder = tmp_path_factory.mktemp("s3")
    local = write_h5feed_file(folder, "train.h5", chunk=32, samples=2000, shape=(24, 20, 3))
    with S3() as s3:
        s3.upload(local, "data/train.h5")
        yield s3, local


@pytest.fixture
def aws(monkeypatch, tmp_path):
    """A clean AWS environment (HOME without ~/.aws) for one test; returns monkeypatch."""
    for name in AWS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return monkeypatch


def epochs_of(path, **options):
    loader = h5feed.Loader(path, batch_size=64, threads=2, cache_bytes=1 << 20, dtype=None,
                           with_indices=True, **options)
    out = []
    for epoch in range(2):
        loader.set_epoch(epoch)
        out.extend((x.clone(), i.clone()) for x, _, i in loader)
    return out


def same_batches(a, b):
    return len(a) == len(b) and all(torch.equal(x, u) and torch.equal(i, j)
                                    for (x, i), (u, j) in zip(a, b))


def test_an_s3_object_signed_from_the_environment_gives_the_local_files_batches(store, aws):
    s3, local = store
    for name, value in s3.environment().items():
        aws.setenv(name, value)
    before = s3.proxy.stats()
    assert same_batches(epochs_of("s3://bucket/data/train.h5"), epochs_of(str(local)))
    after = s3.proxy.stats()
    assert after["requests"] - before["requests"] > 2 * 40  # chunks over the network
    assert after["refused"] == before["refused"]  # every signature checked out


def test_credentials_region_and_endpoint_come_from_the_aws_files(store, aws, tmp_path):
    s3, local = store
    (tmp_path / ".aws").mkdir()
    (tmp_path / ".aws" / "credentials").write_text(
        f"[training]\naws_access_key_id = {s3.KEY}\naws_secret_access_key = {s3.SECRET}\n")
    (tmp_path / ".aws" / "config").write_text(
        f"[profile training]\nregion = {s3.REGION}\nendpoint_url = {s3.endpoint}\n")
    aws.setenv("AWS_PROFILE", "training")
    loader = h5feed.Loader("s3://bucket/data/train.h5", batch_size=500, dtype=None)
    assert loader.dataset["samples"] == 2000 and sum(len(y) for _, y in loader) == 2000


def test_region_and_endpoint_options_override_the_environment(store, aws):
    s3, _ = store
    aws.setenv("AWS_ACCESS_KEY_ID", s3.KEY)
    aws.setenv("AWS_SECRET_ACCESS_KEY", s3.SECRET)
    aws.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")  # nothing there
    loader = h5feed.Loader("s3://bucket/data/train.h5", batch_size=500, dtype=None,
                           remote={"s3_endpoint": s3.endpoint, "s3_region": s3.REGION})
    assert sum(len(y) for _, y in loader) == 2000


def test_a_wrong_secret_is_denied_naming_the_object_never_the_secret(store, aws):
    s3, _ = store
    for name, value in s3.environment().items():
        aws.setenv(name, value)
    aws.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-xyz")
    with pytest.raises(h5feed.IoError) as caught:
        h5feed.Loader("s3://bucket/data/train.h5", batch_size=8)
    message = str(caught.value)
    assert "s3://bucket/data/train.h5" in message and "SignatureDoesNotMatch" in message
    assert "not-the-secret-xyz" not in message and "AWS_SECRET_ACCESS_KEY" in message


def test_a_missing_key_is_not_found_naming_it(store, aws):
    s3, _ = store
    for name, value in s3.environment().items():
        aws.setenv(name, value)
    with pytest.raises(h5feed.NotFoundError, match="s3://bucket/data/absent.h5.*NoSuchKey"):
        h5feed.Loader("s3://bucket/data/absent.h5", batch_size=8)


def test_a_pre_signed_url_reads_without_credentials_and_is_never_shown(store, aws):
    s3, local = store
    url = s3.presign("data/train.h5")
    signature = url.rsplit("=", 1)[1]
    assert same_batches(epochs_of(url), epochs_of(str(local)))
    tampered = url[:-4] + ("0000" if not url.endswith("0000") else "1111")
    with pytest.raises(h5feed.IoError) as caught:
        h5feed.Loader(tampered, batch_size=8)
    assert "SignatureDoesNotMatch" in str(caught.value)
    assert signature[:-4] not in str(caught.value) and "X-Amz" not in str(caught.value)


def test_inspect_and_verify_read_an_s3_object(store, aws):
    s3, _ = store
    env = dict(os.environ, **s3.environment())
    inspect = subprocess.run([H5FEED, "inspect", "--json", "s3://bucket/data/train.h5"],
                             capture_output=True, text=True, env=env, timeout=60)
    assert inspect.returncode == 0, inspect.stderr
    assert json.loads(inspect.stdout)["images"]["num_images"] == 2000
    verify = subprocess.run([H5FEED, "verify", "s3://bucket/data/train.h5"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert verify.returncode == 0, verify.stderr
    assert "nothing wrong found in 63 chunks" in verify.stdout
