def pytest_configure(config):
    config.addinivalue_line("markers", "cluster: needs the single-node Slurm this test starts")
