# This stack configuration is intentionally empty. Don't add anything here.
