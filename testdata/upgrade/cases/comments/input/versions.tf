# Provider requirements for the network stack.
# Bump with: tfupdate provider aws -v "~> 6.0" .

/*
  terraform {
    required_providers {
      aws = { source = "hashicorp/aws", version = "~> 4.0" }
    }
  }
*/

terraform {
  # Keep in step with the CI image.
  required_version = ">= 1.5.0" # checked by the pipeline

  required_providers { // all of them
    # AWS, pinned to the minor release.
    aws = {
      source = "hashicorp/aws" # official
      // version = "~> 4.67"
      /* version = "~> 4.0" */
      version = "~> 5.31" # bump together with the modules
      # trailing comment in the object
    }

    /* Google: only for DNS. */
    google = {
      source  = "hashicorp/google"
      version = ">= 5.0" /* lower bound only */
    }

    random = "~> 3.5" // legacy string form with a comment

    tls = {
      source               = "hashicorp/tls"
      /* inline */ version = "4.0.4"
    }
  }
}
