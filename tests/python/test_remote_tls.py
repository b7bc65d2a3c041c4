"""https:// files from a server whose certificate no system trusts (a private CA's, as a MinIO
or an internal CDN presents): refused with a message that says how to trust it, and read once
SSL_CERT_FILE (or CURL_CA_BUNDLE, AWS_CA_BUNDLE, SSL_CERT_DIR) names its CA, by the Loader,
inspect and the command, as OpenSSL, curl and the AWS CLI read those variables. nginx on the
loopback with a certificate made by openssl (tests/support/http_servers.py)."""
import os
import shutil
import subprocess
import sys

import pytest
import torch

import h5feed
from conftest import H5FEED, write_h5feed_file

sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "support"))
from http_servers import Nginx, self_signed_certificate  # noqa: E402

VARIABLES = ("CURL_CA_BUNDLE", "SSL_CERT_FILE", "AWS_CA_BUNDLE", "SSL_CERT_DIR")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """train.h5 (600 images of 8 x 6 x 3) served over https:// by nginx with a self-signed
    certificate, and that certificate."""
    folder = tmp_path_factory.mktemp("served_tls")
    write_h5feed_file(folder, "train.h5", chunk=32, samples=600, shape=(8, 6, 3))
    tls = self_signed_certificate(tmp_path_factory.mktemp("tls"))
    with Nginx(folder, tls=tls) as server:
        yield folder, server, tls[0]


@pytest.fixture
def environment(monkeypatch):
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def batches(path):
    loader = h5feed.Loader(str(path), batch_size=64, threads=2, dtype=None, with_indices=True)
    return [(x.clone(), y, i) for x, y, i in loader]


def test_an_untrusted_certificate_is_refused_saying_how_to_trust_it(served, environment):
    _, server, _ = served
    with pytest.raises(h5feed.IoError) as caught:
        h5feed.Loader(server.url("train.h5"), batch_size=64, remote={"retries": 0})
    message = str(caught.value)
    assert f"the TLS certificate of {server.url('train.h5')} was refused" in message, message
    assert "checked against the system's CA certificates" in message, message
    assert "SSL_CERT_FILE" in message and "update-ca-certificates" in message, message


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "CURL_CA_BUNDLE", "AWS_CA_BUNDLE"])
def test_a_ca_file_named_in_the_environment_is_trusted(served, environment, variable):
    folder, server, certificate = served
    environment.setenv(variable, certificate)
    local, remote = batches(folder / "train.h5"), batches(server.url("train.h5"))
    assert len(remote) == len(local) == 10
    for (x, y, i), (u, v, j) in zip(local, remote):
        assert torch.equal(i, j) and torch.equal(y, v) and torch.equal(x, u)
    assert h5feed.inspect(server.url("train.h5"))["images"]["num_images"] == 600


def test_a_ca_folder_named_in_ssl_cert_dir_is_trusted(served, environment, tmp_path):
    _, server, certificate = served
    # OpenSSL finds a folder's certificates by their subject's hash: HASH.0 (c_rehash).
    subject_hash = subprocess.run(["openssl", "x509", "-hash", "-noout", "-in", certificate],
                                  capture_output=True, text=True, check=True).stdout.strip()
    shutil.copy(certificate, tmp_path / f"{subject_hash}.0")
    environment.setenv("SSL_CERT_DIR", str(tmp_path))
    assert h5feed.inspect(server.url("train.h5"))["images"]["num_images"] == 600


def test_the_command_reads_with_the_ca_of_the_environment(served, environment):
    _, server, certificate = served
    command = [H5FEED, "inspect", server.url("train.h5"), "--retries", "0"]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "SSL_CERT_FILE" in refused.stderr, refused.stderr
    trusted = subprocess.run(command, capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, SSL_CERT_FILE=certificate))
    assert trusted.returncode == 0, trusted.stderr
    assert "600" in trusted.stdout


def test_a_ca_file_that_does_not_exist_is_named(served, environment, tmp_path):
    _, server, _ = served
    environment.setenv("SSL_CERT_FILE", str(tmp_path / "absent.pem"))
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.inspect(server.url("train.h5"))
    assert f"SSL_CERT_FILE names {tmp_path / 'absent.pem'}, which is not a file" in \
        str(caught.value)


def test_a_ca_variable_naming_a_missing_file_fails_no_http_read(environment, tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    write_h5feed_file(folder, "train.h5", chunk=32, samples=100, shape=(8, 6, 3))
    environment.setenv("SSL_CERT_FILE", str(tmp_path / "absent.pem"))
    with Nginx(folder) as server:
        assert h5feed.inspect(server.url("train.h5"))["images"]["num_images"] == 100


def test_a_ca_file_that_does_not_hold_the_servers_ca_is_named_in_the_refusal(served,
                                                                             environment,
                                                                             tmp_path):
    _, server, _ = served
    other, _ = self_signed_certificate(tmp_path)  # another CA: not the server's
    environment.setenv("SSL_CERT_FILE", other)
    with pytest.raises(h5feed.IoError) as caught:
        h5feed.inspect(server.url("train.h5"), remote={"retries": 0})
    assert f"checked against the CA certificates of SSL_CERT_FILE ({other}), the first set " \
        "of CURL_CA_BUNDLE, SSL_CERT_FILE, AWS_CA_BUNDLE and SSL_CERT_DIR" in str(caught.value)


def test_a_system_bundle_named_first_is_the_one_the_refusal_names(served, environment):
    # A machine may export CURL_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt for every
    # program: it comes before SSL_CERT_FILE, and the refusal says so rather than advise
    # SSL_CERT_FILE in vain.
    _, server, certificate = served
    environment.setenv("CURL_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
    environment.setenv("SSL_CERT_FILE", certificate)
    with pytest.raises(h5feed.IoError) as caught:
        h5feed.inspect(server.url("train.h5"), remote={"retries": 0})
    assert "CA certificates of CURL_CA_BUNDLE (/etc/ssl/certs/ca-certificates.crt), the " \
        "first set of" in str(caught.value)
